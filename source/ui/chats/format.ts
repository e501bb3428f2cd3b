/** The table `chats` prints: one row per synced chat. */
import {formatTable} from '../../format/table.js';
import {defaultProfile as defaultProfileName} from '../../config/profiles.js';
import type {SyncedChat} from '../../workflow/chats.js';

const heading = ['CHAT', 'FOLDER', 'FILES', 'LAST SYNC', 'PROFILE'];

/** `2026-11-28T02:50:01.123Z` as `2026-11-28 02:50 UTC`; as it is when it is no such time. */
export function syncTime(iso: string): string {
	const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
	return match ? `${match[1]} ${match[2]} UTC` : (iso || '-');
}

/** The profile a manifest names, `default` when it names none (written before profiles). */
export function profileOf(chat: SyncedChat): string {
	return chat.profile ?? defaultProfileName;
}

/** The table's lines: padded and fitted on a terminal of `width`, tab-separated when piped (undefined). */
export function formatChatsTable(chats: readonly SyncedChat[], width: number | undefined): string[] {
	const rows = chats.map(chat => [chat.chatId, chat.folder ?? '-', String(chat.files), syncTime(chat.updatedAt), profileOf(chat)]);
	// The chat id is never cut; the folder is cut first, then the profile and the time are left out.
	return formatTable(heading, rows, width, {whole: [0], minimum: {1: 12}, dropOrder: [4, 3]});
}
