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

export const registry: readonly RegistryEntry[] = [
	{words: ['upload'], summary: 'Upload a folder into a new space chat, wait for ingestion and ask a question', load: async () => import('../commands/upload.js')},
	{words: ['chat'], summary: 'Ask follow-up questions in an existing chat', load: async () => import('../commands/chat.js')},
	{words: ['serve'], summary: 'Run the webhook receiver with a live event log', load: async () => import('../commands/serve.js')},
	{words: ['trigger'], summary: 'Send a signed test event to a receiver', load: async () => import('../commands/trigger.js')},
	{words: ['events', 'list'], summary: 'List the events serve has journaled', load: async () => import('../commands/events/list.js')},
	{words: ['events', 'show'], summary: 'Show one journaled event: headers, body and steps', load: async () => import('../commands/events/show.js')},
	{words: ['events', 'export'], summary: 'Print a journaled event\'s body (or write it to a file) as a fixture', load: async () => import('../commands/events/export.js')},
	{words: ['events', 'replay'], summary: 'Process a journaled event again', load: async () => import('../commands/events/replay.js')},
	{words: ['events', 'recover'], summary: 'Copy every readable event of a damaged journal into a fresh one', load: async () => import('../commands/events/recover.js')},
	{words: ['keys', 'set'], summary: 'Store the API key (masked prompt, or stdin)', load: async () => import('../commands/keys/set.js')},
	{words: ['keys', 'show'], summary: 'Show the API key (masked), its source and rotation state', load: async () => import('../commands/keys/show.js')},
	{words: ['keys', 'rotate'], summary: 'Rotate the API key; the old key keeps working until it expires', load: async () => import('../commands/keys/rotate.js')},
	{words: ['local'], summary: 'Run the local platform, a stand-in for the real service', load: async () => import('../commands/local.js')},
	{words: ['config', 'list'], summary: 'List every setting, its value (secrets masked) and where it comes from', load: async () => import('../commands/config/list.js')},
	{words: ['config', 'get'], summary: 'Print one setting', load: async () => import('../commands/config/get.js')},
	{words: ['config', 'set'], summary: 'Store one setting', load: async () => import('../commands/config/set.js')},
	{words: ['config', 'path'], summary: 'Print where the settings file is', load: async () => import('../commands/config/path.js')},
	{words: ['init'], summary: 'Set up the settings interactively and check them against the platform', load: async () => import('../commands/init.js')},
	{words: ['completion'], summary: 'Print a shell completion script (bash, zsh or fish)', load: async () => import('./completion.js')},
	{words: ['version'], summary: 'Print the version of platform-tui', load: async () => import('../commands/version.js')},
];

export {sharedFlags} from './flags.js';

/** The flags shown in help (those with a description), by name: what completion offers. */
export function describedFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.description !== undefined).map(([name]) => name);
}

/**
 * A command's words and summary, for its own module to spread into its definition: the registry
 * entry is the one declaration (the modules load only when run, so the list of names lives here).
 */
export function commandInfo(words: string): {name: string[]; summary: string} {
	const entry = registry.find(candidate => candidate.words.join(' ') === words);
	if (!entry) {
		throw new Error(`No command "${words}" in the registry`);
	}

	return {name: [...entry.words], summary: entry.summary};
}

/** The group words (`keys`, `config`, `events`). */
export function groups(): string[] {
	return [...new Set(registry.filter(entry => entry.words.length > 1).map(entry => entry.words[0] ?? ''))];
}
