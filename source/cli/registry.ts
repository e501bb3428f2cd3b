/**
 * Every command, declared once: the words that name it, its one-line summary and the lazy import
 * of its module. Help, completion, docs/flags.md and the dispatcher read this list; a module
 * loads only when its command runs (or its help is asked for), so `--version` stays fast, and the
 * loader gives the loaded command its words and summary from here.
 */
import type {AnyCommand, FlagSpec} from './types.js';

export type {LoadedCommand} from './types.js';

/** One command: the words that name it, e.g. ['keys', 'rotate'], its summary, and how to load its module. */
export type RegistryEntry = {
	readonly words: readonly string[];
	readonly summary: string;
	readonly load: () => Promise<{default: AnyCommand}>;
};

/** In the order help lists them. */
export const registry: readonly RegistryEntry[] = [
	{words: ['upload'], summary: 'Upload a folder into a new space chat, wait for ingestion and ask a question', load: async () => import('../commands/upload/upload.js')},
	{words: ['chat'], summary: 'Ask follow-up questions in an existing chat', load: async () => import('../commands/chat.js')},
	{words: ['check'], summary: 'Compare a folder with what a chat holds: files missing, changed, only on the chat', load: async () => import('../commands/check.js')},
	{words: ['chats'], summary: 'List the chats this machine synced: folder, files, last sync, profile', load: async () => import('../commands/chats.js')},
	{words: ['serve'], summary: 'Run the webhook receiver with a live event log', load: async () => import('../commands/serve/serve.js')},
	{words: ['listen'], summary: 'Receive the platform\'s events over its event socket, with no public endpoint and no gaps', load: async () => import('../commands/listen/listen.js')},
	{words: ['trigger'], summary: 'Send a signed test event to a receiver', load: async () => import('../commands/trigger/trigger.js')},
	{words: ['events', 'inspect'], summary: 'Browse, search and replay the journaled events in a full-screen inspector', load: async () => import('../commands/events/inspect.js')},
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
	{words: ['config', 'profiles'], summary: 'List the profiles (settings and key sets) and which one is in use', load: async () => import('../commands/config/profiles.js')},
	{words: ['config', 'use'], summary: 'Choose the profile used when --profile and PLATFORM_PROFILE are absent', load: async () => import('../commands/config/use.js')},
	{words: ['init'], summary: 'Set up the settings interactively and check them against the platform', load: async () => import('../commands/init.js')},
	{words: ['completion'], summary: 'Print a shell completion script (bash, zsh or fish)', load: async () => import('./completion.js')},
	{words: ['version'], summary: 'Print the version of platform-tui', load: async () => import('../commands/version.js')},
];

export {sharedFlags} from './flags.js';

/** The flags shown in help (those with a description), by name: what completion offers. */
export function describedFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.description !== undefined).map(([name]) => name);
}

/** The group words (`keys`, `config`, `events`). */
export function groups(): string[] {
	return [...new Set(registry.filter(entry => entry.words.length > 1).map(entry => entry.words[0] ?? ''))];
}
