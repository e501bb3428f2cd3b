/** The space-chat workflow's first part: the folder listed, the manifest opened, the chat opened and the sync planned. */
import path from 'node:path';
import type {UploadEventListener, SpaceSummary} from './events.js';
import {checkReadable, type FolderFile, type FolderScan, type SkippedEntry} from './files.js';
import {checkWritable, SyncManifest} from './manifest.js';
import {planDeletions, type Deletion} from './deletions.js';
import {openChat} from './open-chat.js';
import {isPlainSelection, selectFiles} from './select.js';
import {hashFiles, planEvent, planSync} from './sync.js';
import type {UploadOptions} from './upload-options.js';

/** The files held back by --min-age: still there, so never deleted. */
function listedKept(skipped: readonly SkippedEntry[]): string[] {
	return skipped.filter(entry => entry.kind === 'too-recent').map(entry => entry.name);
}

/** The manifest of the chat being synced (none for a new chat) and the deletions it plans; where it will be written must be writable. */
async function openManifest(options: UploadOptions, files: readonly FolderFile[], skipped: readonly SkippedEntry[]): Promise<{manifest: SyncManifest | undefined; deletions: Deletion[]}> {
	const place = options.manifest;
	const existing = options.chatId;
	if (!place) {
		return {manifest: undefined, deletions: []};
	}

	await checkWritable(place.dataDir, path.dirname(place.file(existing ?? 'chat')));
	if (existing === undefined) {
		return {manifest: undefined, deletions: []};
	}

	const manifest = await SyncManifest.open(place.file(existing), place.baseUrl, existing);
	const deletions = await planDeletions({manifest, folder: options.folder, selected: files.map(file => file.name), kept: listedKept(skipped), deletion: options.deletion});
	return {manifest, deletions};
}

/** The files of the folder (or the listing given), each checked to open; `files-listed` says what they are. */
async function listFiles(options: UploadOptions, emit: UploadEventListener): Promise<FolderScan> {
	const {files, skipped} = options.listing ?? await selectFiles(options.folder, options.selection);
	await checkReadable(options.folder, files);
	emit({
		type: 'files-listed',
		folder: options.folder,
		files: files.map(file => ({name: file.name, size: file.size, mimeType: file.mimeType})),
		totalBytes: files.reduce((sum, file) => sum + file.size, 0),
		skipped,
	});
	return {files, skipped};
}

/** Where a run stands once its chat is open: what it sends, into which chat, and what the sync planned. */
export type Prepared = {
	files: FolderFile[];
	chatId: string;
	space: SpaceSummary | Error;
	manifest: SyncManifest | undefined;
	deletions: Deletion[];
	plan: Awaited<ReturnType<typeof planSync>> | undefined;
	/** A sync flag asked for it (an existing chat, a selection, deletions): the plan is shown. */
	syncing: boolean;
};

/**
 * Lists the folder (every file checked to open), opens the manifest (its place checked writable)
 * before any platform call, then creates or checks the chat while the files are hashed, and plans
 * what to send.
 */
export async function prepareRun(options: UploadOptions, title: string, signal: AbortSignal, emit: UploadEventListener): Promise<Prepared> {
	const {client} = options;
	// The folder and every file in it are checked before anything is created on the platform.
	const {files, skipped} = await listFiles(options, emit);
	signal.throwIfAborted();
	const existing = options.chatId;
	// An unwritable data directory, a damaged manifest or too many deletions stop the run before any platform call.
	const opened = await openManifest(options, files, skipped);
	const {deletions} = opened;
	let {manifest} = opened;

	// The files are hashed while the chat is created or checked (the plan needs both); a read error surfaces there.
	const hashing = options.manifest ? hashFiles(files) : undefined;
	hashing?.catch(() => undefined);

	const {chatId, space} = await openChat(options, title, signal, emit);

	// The sync panel shows for what a sync flag asks; a plain upload keeps its manifest quietly.
	const syncing = existing !== undefined || !isPlainSelection(options.selection ?? {}) || deletions.length > 0;
	if (options.manifest && manifest === undefined) {
		manifest = SyncManifest.empty(options.manifest.file(chatId), options.manifest.baseUrl, chatId);
	}

	// The manifest names its folder and profile, so `chats` can list what this machine synced.
	manifest?.describe({folder: path.resolve(options.folder), ...(options.manifest?.profile === undefined ? {} : {profile: options.manifest.profile})});

	// Every run with a manifest hashes its files, so each one finalized is recorded with its bytes' hash.
	const plan = syncing || manifest ? await planSync(files, manifest, {client, chatId, parallelism: Math.max(1, options.searchParallelism ?? 64), signal, existing: existing !== undefined, ...(hashing ? {hashing} : {})}) : undefined;
	if (plan && syncing) {
		emit(planEvent(plan, {chatId, ...(manifest ? {manifest: manifest.file} : {}), dryRun: false, deletions}));
	}

	return {files, chatId, space, manifest, deletions, plan, syncing};
}
