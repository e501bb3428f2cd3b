/**
 * `check`: does a folder still match what a chat holds (rclone's check)? The folder is listed with
 * the upload's own selection (select.ts) and hashed; what the chat holds is its manifest, each
 * content confirmed on the platform (searchStates: 100 ids per search). Keys the manifest does
 * not know are looked up by key (heldByChat), as a sync does. Reads only.
 */
import {NoFilesFoundError, compareCodePoints} from './errors.js';
import type {FolderScan} from './files.js';
import {SyncManifest} from './manifest.js';
import {selectFiles, selectsKey, type Selection} from './select.js';
import {checkChat, hashFiles, heldByChat, searchStates, type HashedFile} from './sync.js';
import type {UploadClient} from './types.js';

/**
 * One key on which the folder and the chat differ. `missing`: in the folder, not in the chat
 * (never uploaded, its content gone, or its ingestion failed). `changed`: in both, other bytes
 * (`hash`), or held by the chat without this machine's manifest knowing its bytes (`unknown`).
 * `only-on-chat`: the chat holds it, the folder has no such file.
 */
export type CheckDifference =
	| {name: string; status: 'missing'; reason: 'not-uploaded' | 'content-gone' | 'failed'; size: number; contentId?: string}
	| {name: string; status: 'changed'; reason: 'hash' | 'unknown'; size: number; contentId?: string}
	| {name: string; status: 'only-on-chat'; reason: 'no-file'; size: number; contentId: string};

export type CheckReport = {
	chatId: string;
	folder: string;
	manifest: string;
	/** Files whose bytes the chat holds (FINISHED, or still being ingested). */
	matched: number;
	/** Of `matched`, those still being ingested. */
	ingesting: number;
	/** In key order. */
	differences: CheckDifference[];
};

export type CheckOptions = {
	client: UploadClient;
	chatId: string;
	folder: string;
	selection?: Selection;
	manifest: {baseUrl: string; file(chatId: string): string};
	signal: AbortSignal;
	/** Searches in flight at once; default 16. */
	parallelism?: number;
};

/** The folder as the upload would list it; a folder with no file left is an empty side, not an error. */
async function listFolder(folder: string, selection: Selection | undefined): Promise<FolderScan> {
	try {
		return await selectFiles(folder, selection);
	} catch (error) {
		if (error instanceof NoFilesFoundError) {
			return {files: [], skipped: []};
		}

		throw error;
	}
}

/** How one file of the folder stands against the manifest and the states found. */
function compareFile(file: HashedFile, manifest: SyncManifest, states: ReadonlyMap<string, string | undefined>, held: ReadonlySet<string>): CheckDifference | 'match' | 'ingesting' {
	const {name, size} = file;
	const entry = manifest.get(name);
	if (entry === undefined) {
		return held.has(name) ? {name, status: 'changed', reason: 'unknown', size} : {name, status: 'missing', reason: 'not-uploaded', size};
	}

	const {contentId} = entry;
	const state = states.get(contentId);
	if (state === undefined) {
		return {name, status: 'missing', reason: 'content-gone', size, contentId};
	}

	if (state.startsWith('FAILED')) {
		return {name, status: 'missing', reason: 'failed', size, contentId};
	}

	if (entry.sha256 !== file.sha256) {
		return {name, status: 'changed', reason: 'hash', size, contentId};
	}

	return state === 'FINISHED' ? 'match' : 'ingesting';
}

/** Compares the folder with the chat; throws UnknownChatError when the platform does not know the chat. */
export async function checkFolder(options: CheckOptions): Promise<CheckReport> {
	const {client, chatId, signal} = options;
	const parallelism = options.parallelism ?? 16;
	const [{files, skipped}] = await Promise.all([listFolder(options.folder, options.selection), checkChat(client, chatId, signal)]);
	const manifest = await SyncManifest.open(options.manifest.file(chatId), options.manifest.baseUrl, chatId);
	const hashed = await hashFiles(files);
	const unknown = hashed.filter(file => manifest.get(file.name) === undefined).map(file => file.name);
	const contentIds = [...new Set([...manifest.entries.values()].map(entry => entry.contentId))];
	const where = {client, chatId, parallelism, signal};
	const [states, held] = await Promise.all([
		contentIds.length === 0 ? new Map<string, string | undefined>() : searchStates({...where, contentIds}),
		unknown.length === 0 ? new Set<string>() : heldByChat({...where, keys: unknown}),
	]);

	const report: CheckReport = {chatId, folder: options.folder, manifest: manifest.file, matched: 0, ingesting: 0, differences: []};
	for (const file of hashed) {
		const outcome = compareFile(file, manifest, states, held);
		if (outcome === 'match' || outcome === 'ingesting') {
			report.matched++;
			report.ingesting += outcome === 'ingesting' ? 1 : 0;
		} else {
			report.differences.push(outcome);
		}
	}

	// What the chat holds under a key the selection picks, whose file is not in the folder.
	const listed = new Set([...files.map(file => file.name), ...skipped.filter(entry => entry.kind === 'too-recent').map(entry => entry.name)]);
	const selects = selectsKey(options.selection ?? {});
	for (const [name, entry] of manifest.entries) {
		const state = states.get(entry.contentId);
		if (!listed.has(name) && selects(name) && state !== undefined && !state.startsWith('FAILED')) {
			report.differences.push({name, status: 'only-on-chat', reason: 'no-file', size: entry.size, contentId: entry.contentId});
		}
	}

	report.differences.sort((a, b) => compareCodePoints(a.name, b.name));
	return report;
}
