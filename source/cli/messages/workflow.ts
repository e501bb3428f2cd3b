/**
 * How the CLI words the workflow's errors (source/workflow/errors.ts), keyed by error code:
 * `message` says what failed and names the file, content or chat; `next` says what to do.
 */
import {formatSeconds} from '../../format/duration.js';
import {plural} from '../../format/text.js';
import type {MessageTable} from './types.js';

type Failure = {name: string; reason: string};

const reasons: Record<string, string> = {
	EACCES: 'permission denied',
	EPERM: 'operation not permitted',
	EROFS: 'read-only file system',
	ENOENT: 'it disappeared',
	EISDIR: 'it is a folder',
	EMFILE: 'too many open files',
};

function globs(flag: string, list: readonly string[]): string {
	return list.map(glob => `${flag} ${JSON.stringify(glob)}`).join(' or ');
}

/** What the globs did to the folder's files: none matches --include (without --exclude), or every one matches --exclude. */
function noMatchText(data: {folder: string; filtered: number; include: string[]; exclude: string[]}): string {
	const one = data.filtered === 1;
	if (data.include.length === 0) {
		return one ? `The one file in ${data.folder} matches ${globs('--exclude', data.exclude)}` : `All ${data.filtered} files in ${data.folder} match ${globs('--exclude', data.exclude)}`;
	}

	const unless = data.exclude.length === 0 ? '' : ` without also matching ${globs('--exclude', data.exclude)}`;
	return one
		? `The one file in ${data.folder} does not match ${globs('--include', data.include)}${unless}`
		: `None of the ${data.filtered} files in ${data.folder} matches ${globs('--include', data.include)}${unless}`;
}

export const workflowMessages: MessageTable = {
	'folder-missing': (data: {folder: string}) => ({
		message: `The folder ${data.folder} does not exist, so nothing was started`,
		next: 'Pass the folder whose files should be uploaded.',
	}),
	'folder-not-a-directory': (data: {folder: string}) => ({
		message: `${data.folder} is a file, not a folder, so nothing was started`,
		next: 'Pass the folder whose files should be uploaded.',
	}),
	'no-files-match': (data: {folder: string; filtered: number; include: string[]; exclude: string[]}) => ({
		message: `${noMatchText(data)}, so nothing was started (globs match paths relative to the folder${data.include.some(glob => glob.includes('/')) ? '; add --recursive for files in subfolders' : ''})`,
		next: 'Check the globs with --dry-run, e.g. --include "*.md" or --include "**/*.md" --recursive.',
	}),
	'folder-empty': (data: {folder: string}) => ({
		message: `The folder ${data.folder} has no files to upload, so nothing was started`,
		next: 'Only regular files whose names do not begin with a dot are uploaded.',
	}),
	'files-unreadable': (data: {folder: string; files: Array<{name: string; reason: string}>}) => ({
		message: `Cannot read ${plural(data.files.length, 'file')} in ${data.folder}, so nothing was created: ${data.files.map(file => `${file.name} (${reasons[file.reason] ?? file.reason})`).join(', ')}`,
		next: 'Fix the permissions, or move the file out of the folder.',
	}),
	'write-url-missing': (data: {file: string; contentId?: string}) => ({
		message: `The platform returned no writeUrl for ${data.file}${data.contentId ? ` (content ${data.contentId})` : ''}, so its bytes cannot be uploaded`,
		next: 'Check that the space allows chat uploads.',
	}),
	'blob-upload-failed': (data: {file: string; status: number; detail: string}) => ({
		message: `Uploading ${data.file} failed: the blob store answered the PUT with HTTP ${data.status}${data.detail ? ` (${data.detail})` : ''}`,
	}),
	'file-upload-failed': (data: {file: string; detail: string}) => ({
		message: `Uploading ${data.file} failed: ${data.detail}`,
	}),
	'ingestion-failed': (data: {contentId: string; file: string; state: string}) => ({
		message: `Ingestion failed for content ${data.contentId} (${data.file}) with state ${data.state}`,
		next: 'Check that the file is readable and of a supported type, or pass --keep-going to ask about the other files.',
	}),
	'ingestion-timeout': (data: {pending: string[]; timeoutMs: number}) => ({
		message: `Ingestion timed out after ${formatSeconds(data.timeoutMs)} with ${plural(data.pending.length, 'content')} pending: ${data.pending.join(', ')}`,
		next: 'Raise --ingestion-timeout to wait longer, or pass --keep-going to ask about the files that finished.',
	}),
	'reply-timeout': (data: {chatId: string; timeoutMs: number}) => ({
		message: `Timed out after ${formatSeconds(data.timeoutMs)} waiting for the assistant's reply in chat ${data.chatId}`,
		next: 'Raise --reply-timeout to wait longer; the chat keeps the uploaded files.',
	}),
	'nothing-ingested': (data: {chatId: string; failed: Failure[]}) => ({
		message: `No file was ingested into chat ${data.chatId}, so the prompt was not sent: ${data.failed.map(failure => `${failure.name} (${failure.reason})`).join(', ')}`,
	}),
	'unknown-chat': (data: {chatId: string}) => ({
		message: `Chat ${data.chatId} was not found on the platform, so nothing was uploaded or asked`,
		next: 'Check the chat id (the upload that created the chat printed it; platform-tui chats lists the chats this machine synced), and that the settings point at the same platform and company.',
	}),
	'manifest-damaged': (data: {file: string; detail: string}) => ({
		message: `The sync manifest ${data.file} cannot be used: ${data.detail}`,
		next: 'Delete it to start the chat\'s record afresh (the next run sends every file once more, each replacing its earlier copy).',
	}),
	'manifest-write-failed': (data: {file: string; detail: string}) => ({
		message: `The sync manifest ${data.file} could not be written (${data.detail}), so the upload stopped`,
		next: 'Free space or fix the permissions of the data directory, or point PLATFORM_TUI_DATA_DIR elsewhere, and run the same command again.',
	}),
	'data-dir-not-writable': (data: {dataDir: string; folder: string; detail: string}) => ({
		message: `The data directory ${data.dataDir} is not writable (${reasons[data.detail] ?? data.detail} on ${data.folder}), so the upload could keep no manifest to resume or skip from; nothing was sent and no chat was created`,
		next: data.detail === 'EROFS'
			? `${data.folder} is on a read-only file system: point PLATFORM_TUI_DATA_DIR at a writable folder, and run the same command again.`
			: 'Fix its permissions, or point PLATFORM_TUI_DATA_DIR at a writable folder, and run the same command again.',
	}),
	'too-many-deletions': (data: {chatId: string; count: number; maxDelete: number}) => ({
		message: `This run would delete ${plural(data.count, 'content')} from chat ${data.chatId}, more than --max-delete ${data.maxDelete} allows; nothing was deleted or sent`,
		next: `Check the list with --dry-run, then pass --max-delete ${data.count} to allow it.`,
	}),
	'delete-failed': (data: {chatId: string; file: string; contentId: string; detail: string}) => ({
		message: `Deleting ${data.file} (content ${data.contentId}) from chat ${data.chatId} failed: ${data.detail}; the manifest still lists it`,
	}),
	'history-failed': (data: {chatId: string; detail: string}) => ({
		message: `The reply is above, but the history of chat ${data.chatId} could not be fetched: ${data.detail}`,
		next: 'The chat keeps it; look again later.',
	}),
};
