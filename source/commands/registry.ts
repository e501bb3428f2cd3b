/**
 * Every command, one file each, with the words that name it and its one-line summary. Modules load
 * only when their command runs (or its help is asked for), so `--version` stays fast.
 */
import type {AnyCommand, FlagSpec} from './types.js';

/** A loaded command module's default export. */
export type LoadedCommand = AnyCommand;

export type RegistryEntry = {
	/** The words that name the command, e.g. ['keys', 'rotate']. */
	words: string[];
	summary: string;
	load: () => Promise<{default: LoadedCommand}>;
};

/**
 * Loads a module the type checker cannot see yet (a command another change is adding); a missing
 * module fails at run time and the dispatcher words it.
 */
async function loadLater(specifier: string): Promise<{default: LoadedCommand}> {
	return import(specifier) as Promise<{default: LoadedCommand}>;
}

export const registry: readonly RegistryEntry[] = [
	{words: ['upload'], summary: 'Upload a folder into a new space chat, wait for ingestion and ask a question', load: async () => import('./upload.js')},
	{words: ['chat'], summary: 'Ask follow-up questions in an existing chat', load: async () => import('./chat.js')},
	{words: ['serve'], summary: 'Run the webhook receiver with a live event log', load: async () => import('./serve.js')},
	{words: ['trigger'], summary: 'Send a signed test event to a receiver', load: async () => import('./trigger.js')},
	{words: ['events', 'inspect'], summary: 'Browse, search and replay the journaled events in a full-screen inspector', load: async () => loadLater('./events/inspect.js')},
	{words: ['events', 'list'], summary: 'List the events serve has journaled', load: async () => loadLater('./events/list.js')},
	{words: ['events', 'show'], summary: 'Show one journaled event: headers, body and steps', load: async () => loadLater('./events/show.js')},
	{words: ['events', 'export'], summary: 'Print a journaled event\'s body (or write it to a file) as a fixture', load: async () => import('./events/export.js')},
	{words: ['events', 'replay'], summary: 'Process a journaled event again', load: async () => loadLater('./events/replay.js')},
	{words: ['events', 'recover'], summary: 'Copy every readable event of a damaged journal into a fresh one', load: async () => import('./events/recover.js')},
	{words: ['keys', 'set'], summary: 'Store the API key (masked prompt, or stdin)', load: async () => import('./keys/set.js')},
	{words: ['keys', 'show'], summary: 'Show the API key (masked), its source and rotation state', load: async () => import('./keys/show.js')},
	{words: ['keys', 'rotate'], summary: 'Rotate the API key; the old key keeps working until it expires', load: async () => import('./keys/rotate.js')},
	{words: ['local'], summary: 'Run the local platform, a stand-in for the real service', load: async () => import('./local.js')},
	{words: ['config', 'list'], summary: 'List every setting, its value (secrets masked) and where it comes from', load: async () => import('./config/list.js')},
	{words: ['config', 'get'], summary: 'Print one setting', load: async () => import('./config/get.js')},
	{words: ['config', 'set'], summary: 'Store one setting', load: async () => import('./config/set.js')},
	{words: ['config', 'path'], summary: 'Print where the settings file is', load: async () => import('./config/path.js')},
	{words: ['init'], summary: 'Set up the settings interactively and check them against the platform', load: async () => import('./init.js')},
	{words: ['completion'], summary: 'Print a shell completion script (bash, zsh or fish)', load: async () => import('./completion.js')},
	{words: ['version'], summary: 'Print the version of platform-tui', load: async () => import('./version.js')},
];

/** Flags every command accepts (gh's inherited flags): output mode and the connection settings. */
export const sharedFlags: Record<string, FlagSpec> = {
	json: {type: 'boolean', default: false, description: 'Print NDJSON events on stdout instead of a screen'},
	debug: {type: 'boolean', default: false, description: 'Show stack traces and a request log (secrets masked)'},
	baseUrl: {type: 'string', description: 'Platform base address (PLATFORM_BASE_URL)', placeholder: 'URL'},
	appId: {type: 'string', description: 'Application id (PLATFORM_APP_ID)', placeholder: 'ID'},
	userId: {type: 'string', description: 'User id (PLATFORM_USER_ID)', placeholder: 'ID'},
	companyId: {type: 'string', description: 'Company id (PLATFORM_COMPANY_ID)', placeholder: 'ID'},
	assistantId: {type: 'string', description: 'Space (assistant) id (PLATFORM_ASSISTANT_ID)', placeholder: 'ID'},
	model: {type: 'string', description: 'Chat-completion model (PLATFORM_MODEL)', placeholder: 'NAME'},
	help: {type: 'boolean', default: false, shortFlag: 'h'},
	version: {type: 'boolean', default: false, shortFlag: 'v'},
};

/** The flags shown in help (those with a description), by name: what completion offers. */
export function describedFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.description !== undefined).map(([name]) => name);
}

/** The group words (`keys`, `config`, `events`). */
export function groups(): string[] {
	return [...new Set(registry.filter(entry => entry.words.length > 1).map(entry => entry.words[0] ?? ''))];
}
