/** The sentences for private folders (source/private-folder.ts): its error codes and the warning about a shared folder. */
import type {FolderRole, PrivateFolderErrorData, SharedFolder} from '../../private-folder.js';
import type {MessageTable} from './types.js';

const holds: Record<FolderRole, {name: string; what: string}> = {
	data: {name: 'data folder', what: 'the event journal (what chat users typed) and upload manifests'},
	config: {name: 'config folder', what: 'the settings and the API key'},
};

function octal(mode: number): string {
	return mode.toString(8).padStart(4, '0');
}

export const privacyMessages: MessageTable = {
	'folder-other-owner': (data: PrivateFolderErrorData['folder-other-owner']) => ({
		message: `The ${holds[data.role].name} ${data.folder} belongs to another user (uid ${data.owner}), who could read or change ${holds[data.role].what}, so it was not used.`,
		next: 'Run this as the user that owns it, or choose a folder of your own (--data-dir DIR, PLATFORM_TUI_DATA_DIR or PLATFORM_TUI_CONFIG_DIR).',
	}),
	'folder-other-owner-link': (data: PrivateFolderErrorData['folder-other-owner-link']) => ({
		message: `The ${holds[data.role].name} ${data.folder} is reached through the link ${data.link}, which another user (uid ${data.owner}) owns and could point elsewhere, so it was not used.`,
		next: 'Name the folder by a path without that link, or have the link owned by you or root.',
	}),
	'data-dir-shared-writable': (data: PrivateFolderErrorData['data-dir-shared-writable']) => ({
		message: `Other users can write the data folder ${data.folder} (mode ${octal(data.mode)}), so they could change or replace the event journal; serve did not start.`,
		next: `Run \`chmod 700 ${data.folder}\`, or pass --allow-shared-data-dir to run anyway.`,
	}),
};

/** The one warning about a folder others can reach: which folder, what it holds, the command that makes it private. */
export function sharedFolderWarning(shared: SharedFolder): string {
	const can = shared.read && shared.write ? 'read and write' : (shared.write ? 'write' : 'read');
	return `Other users can ${can} the ${holds[shared.role].name} ${shared.folder} (mode ${octal(shared.mode)}), which holds ${holds[shared.role].what}; \`chmod 700 ${shared.folder}\` makes it private.`;
}
