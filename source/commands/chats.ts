/**
 * `platform-tui chats`: the chats this machine synced, read from the upload manifests in the data
 * directory (PLATFORM_TUI_DATA_DIR): chat id, folder, files, last sync and profile, the most
 * recent first. Reads no setting and calls no platform.
 */
import type {Command} from '../cli/types.js';
import {UsageError} from '../cli/validators.js';
import {tableWidth} from '../format/table.js';
import {defaultDataDir} from '../receiver/journal/open/location.js';

const command: Command<Record<string, never>> = {
	usage: 'platform-tui chats [--json]',
	description: 'List the chats this machine synced, from the upload manifests: chat id, folder, files, last sync and profile, the most recent first',
	flags: {},
	examples: [
		'platform-tui chats',
		'platform-tui chats --json',
	],
	parse({argv}) {
		if (argv.length > 0) {
			throw new UsageError('too-many-arguments', 'Usage: platform-tui chats [--json] (it takes no arguments)');
		}

		return {};
	},
	async run(_options, deps) {
		const {context} = deps;
		const [{listSyncedChats}, {formatChatsTable, profileOf}] = await Promise.all([import('../workflow/chats.js'), import('../ui/chats/format.js')]);
		const dataDir = defaultDataDir(context.env);
		const {chats, unreadable} = await listSyncedChats(dataDir);
		if (deps.output.json) {
			for (const chat of chats) {
				deps.output.print({type: 'synced-chat', chatId: chat.chatId, baseUrl: chat.baseUrl, folder: chat.folder ?? null, files: chat.files, lastSync: chat.updatedAt, profile: profileOf(chat), manifest: chat.manifest});
			}
		} else if (chats.length === 0) {
			context.stderr.write(`No synced chats: no upload manifest under ${dataDir}. An upload keeps one per chat; see docs/sync-and-chat.md.\n`);
		} else {
			context.stdout.write(`${formatChatsTable(chats, tableWidth(context.stdout)).join('\n')}\n`);
		}

		for (const {file, reason} of unreadable) {
			context.stderr.write(`Warning: ${file} was left out: ${reason}\n`);
		}

		return 0;
	},
};

export default command;
