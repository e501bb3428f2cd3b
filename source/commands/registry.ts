/**
 * Every command, declared once: the words that name it, its one-line summary and the lazy import
 * of its module. The entry (cli.ts) hands this table to the dispatcher; help, completion and
 * docs/flags.md read it from there. The loader gives the loaded command its words and summary.
 */
import type {Registry} from '../cli/registry.js';
import type {AnyCommand} from '../cli/types.js';

/** `completion` lists every command, so it is made with this table, once (a loaded command keeps its identity). */
let completion: AnyCommand | undefined;
async function loadCompletion(): Promise<{default: AnyCommand}> {
	const {completionCommand} = await import('./completion.js');
	completion ??= completionCommand(registry);
	return {default: completion};
}

/** In the order help lists them. */
export const registry: Registry = [
	{words: ['upload'], summary: 'Upload a folder into a new space chat, wait for ingestion and ask a question', load: async () => import('./upload/upload.js')},
	{words: ['chat'], summary: 'Ask follow-up questions in an existing chat', load: async () => import('./chat.js')},
	{words: ['check'], summary: 'Compare a folder with what a chat holds: files missing, changed, only on the chat', load: async () => import('./check.js')},
	{words: ['chats'], summary: 'List the chats this machine synced: folder, files, last sync, profile', load: async () => import('./chats.js')},
	{words: ['serve'], summary: 'Run the webhook receiver with a live event log', load: async () => import('./serve/serve.js')},
	{words: ['listen'], summary: 'Receive the platform\'s events over its event socket, with no public endpoint and no gaps', load: async () => import('./listen/listen.js')},
	{words: ['trigger'], summary: 'Send a signed test event to a receiver', load: async () => import('./trigger/trigger.js')},
	{words: ['events', 'inspect'], summary: 'Browse, search and replay the journaled events in a full-screen inspector', load: async () => import('./events/inspect.js')},
	{words: ['events', 'list'], summary: 'List the events serve has journaled', load: async () => import('./events/list.js')},
	{words: ['events', 'show'], summary: 'Show one journaled event: headers, body and steps', load: async () => import('./events/show.js')},
	{words: ['events', 'export'], summary: 'Print a journaled event\'s body (or write it to a file) as a fixture', load: async () => import('./events/export.js')},
	{words: ['events', 'replay'], summary: 'Process a journaled event again', load: async () => import('./events/replay.js')},
	{words: ['events', 'recover'], summary: 'Copy every readable event of a damaged journal into a fresh one', load: async () => import('./events/recover.js')},
	{words: ['keys', 'set'], summary: 'Store the API key (masked prompt, or stdin)', load: async () => import('./keys/set.js')},
	{words: ['keys', 'show'], summary: 'Show the API key (masked), its source and rotation state', load: async () => import('./keys/show.js')},
	{words: ['keys', 'rotate'], summary: 'Rotate the API key; the old key keeps working until it expires', load: async () => import('./keys/rotate.js')},
	{words: ['local'], summary: 'Run the local platform, a stand-in for the real service', load: async () => import('./local.js')},
	{words: ['config', 'list'], summary: 'List every setting, its value (secrets masked) and where it comes from', load: async () => import('./config/list.js')},
	{words: ['config', 'get'], summary: 'Print one setting', load: async () => import('./config/get.js')},
	{words: ['config', 'set'], summary: 'Store one setting', load: async () => import('./config/set.js')},
	{words: ['config', 'path'], summary: 'Print where the settings file is', load: async () => import('./config/path.js')},
	{words: ['config', 'profiles'], summary: 'List the profiles (settings and key sets) and which one is in use', load: async () => import('./config/profiles.js')},
	{words: ['config', 'use'], summary: 'Choose the profile used when --profile and PLATFORM_PROFILE are absent', load: async () => import('./config/use.js')},
	{words: ['init'], summary: 'Set up the settings interactively and check them against the platform', load: async () => import('./init.js')},
	{words: ['completion'], summary: 'Print a shell completion script (bash, zsh or fish)', load: loadCompletion},
	{words: ['version'], summary: 'Print the version of platform-tui', load: async () => import('./version.js')},
];
