/**
 * Sync into an existing chat: the chat is checked, every selected file is hashed and compared
 * with the chat's manifest, and the contents the manifest calls unchanged are checked on the
 * platform with one content search each, in one round (as an ingestion round does). What comes
 * out is the plan: files to upload (new keys), to replace (changed bytes, or content gone or
 * failed), to wait for (same bytes, still ingesting) and to skip (same bytes, FINISHED).
 */
import {checkChat} from './conversation.js';

export {checkChat, UnknownChatError} from './conversation.js';
import type {UploadEventListener} from './events.js';
import type {FolderFile} from './files.js';
import {contentState, eachLimit} from './ingestion.js';
import {sha256File} from '../file-hash.js';
import {SyncManifest} from './manifest.js';
import {PlatformApiError} from '../platform/errors.js';
import {checkReadable} from './files.js';
import {planDeletions, type Deletion, type DeletionOptions} from './deletions.js';
import {selectFiles, type Selection} from './select.js';
import type {UploadClient} from './types.js';

export type HashedFile = FolderFile & {sha256: string};

export type SyncPlan = {
	/** Keys neither the manifest nor the platform knows. */
	upload: HashedFile[];
	/**
	 * Keys whose bytes changed, or whose content is gone or failed, or that the chat holds without
	 * the manifest knowing their bytes: upserted under the same key, so the platform replaces them.
	 */
	replace: HashedFile[];
	/** Same bytes, content still being ingested: waited for, not sent again. */
	awaiting: Array<HashedFile & {contentId: string}>;
	/** Same bytes, content FINISHED: skipped. */
	unchanged: Array<HashedFile & {contentId: string}>;
};

/** Hashes every file, a few at a time, keeping their order. */
export async function hashFiles(files: readonly FolderFile[], parallelism = 8): Promise<HashedFile[]> {
	const hashes = new Map<FolderFile, string>();
	await eachLimit(files, parallelism, async file => {
		hashes.set(file, await sha256File(file.path));
	});
	return files.map(file => ({...file, sha256: hashes.get(file) ?? ''}));
}

/**
 * Sorts the files by the manifest. `states` are the ingestion states found for the contents
 * whose bytes match (undefined: not found); a dry run passes the states the manifest recorded.
 */
export function classify(files: readonly HashedFile[], manifest: SyncManifest | undefined, states: ReadonlyMap<string, string | undefined>, heldKeys: ReadonlySet<string> = new Set()): SyncPlan {
	const plan: SyncPlan = {upload: [], replace: [], awaiting: [], unchanged: []};
	for (const file of files) {
		const entry = manifest?.get(file.name);
		if (entry === undefined) {
			(heldKeys.has(file.name) ? plan.replace : plan.upload).push(file);
			continue;
		}

		const state = entry.sha256 === file.sha256 ? states.get(entry.contentId) : undefined;
		if (state === 'FINISHED') {
			plan.unchanged.push({...file, contentId: entry.contentId});
		} else if (state === undefined || state === '' || state.startsWith('FAILED')) {
			plan.replace.push(file);
		} else {
			plan.awaiting.push({...file, contentId: entry.contentId});
		}
	}

	return plan;
}

/** The contents whose bytes match the manifest: the only ones worth a content search. */
export function matchingContents(files: readonly HashedFile[], manifest: SyncManifest): string[] {
	return files.flatMap(file => {
		const entry = manifest.get(file.name);
		return entry?.sha256 === file.sha256 ? [entry.contentId] : [];
	});
}

/** A 4xx other than 429: the platform does not take this kind of search. */
function isRefusal(error: unknown): boolean {
	return error instanceof PlatformApiError && error.status >= 400 && error.status < 500 && error.status !== 429;
}

/** Most content ids one batched content search names. */
export const searchBatchSize = 100;

/**
 * One round of content searches: each content's state, or undefined when not found. Ids are asked
 * `searchBatchSize` at a time (`where.id.in`), the batches `parallelism` at a time, and the answer
 * is read by id; a batch the platform refuses, or answers with no record at all, is asked again
 * one id at a time (`where.id.equals`, spec §4.3), so a platform without `in` costs time, never a
 * wrong label.
 */
export async function searchStates(options: {client: UploadClient; chatId: string; contentIds: readonly string[]; parallelism: number; signal: AbortSignal}): Promise<Map<string, string | undefined>> {
	const {client, chatId, signal} = options;
	const states = new Map<string, string | undefined>();
	const batches: string[][] = [];
	for (let index = 0; index < options.contentIds.length; index += searchBatchSize) {
		batches.push(options.contentIds.slice(index, index + searchBatchSize));
	}

	const oneByOne = async (ids: readonly string[]): Promise<void> => {
		await eachLimit(ids, options.parallelism, async contentId => {
			states.set(contentId, await contentState(client, chatId, contentId, signal));
		});
	};

	await eachLimit(batches, options.parallelism, async ids => {
		if (ids.length === 1) {
			await oneByOne(ids);
			return;
		}

		const found = await client.searchContent({where: {id: {in: ids}}, chatId, includeFailedContent: true}, {signal}).catch((error: unknown) => {
			signal.throwIfAborted();
			if (isRefusal(error)) {
				return undefined;
			}

			throw error;
		});
		if (found === undefined || found.length === 0) {
			await oneByOne(ids);
			return;
		}

		const byId = new Map(found.flatMap(item => (item.id === undefined ? [] : [[item.id, item.ingestionState ?? ''] as const])));
		for (const contentId of ids) {
			states.set(contentId, byId.get(contentId));
		}
	});
	return states;
}

/**
 * Which of these keys the chat already holds, by one content search per key (`parallelism` at a
 * time): keys the manifest does not know, in a chat filled by another run or machine.
 */
export async function heldByChat(options: {client: UploadClient; chatId: string; keys: readonly string[]; parallelism: number; signal: AbortSignal}): Promise<Set<string>> {
	const held = new Set<string>();
	let unsupported = false;
	await eachLimit(options.keys, options.parallelism, async key => {
		if (unsupported) {
			return;
		}

		// A platform that refuses where.key leaves the labels to the manifest alone; it never stops the run.
		const found = await options.client.searchContent({where: {key: {equals: key}}, chatId: options.chatId, includeFailedContent: true}, {signal: options.signal}).catch((error: unknown) => {
			options.signal.throwIfAborted();
			if (isRefusal(error)) {
				unsupported = true;
				return [];
			}

			throw error;
		});
		// A sparse answer carries no key; a record naming another key does not count.
		if (found.some(item => (item as {key?: unknown}).key === undefined || (item as {key?: unknown}).key === key)) {
			held.add(key);
		}
	});
	return held;
}

/** The plan as its event carries it. */
export function planEvent(plan: SyncPlan, options: {chatId?: string; manifest?: string; dryRun: boolean; deletions?: readonly Deletion[]}): Extract<Parameters<UploadEventListener>[0], {type: 'sync-planned'}> {
	const brief = (file: HashedFile): {name: string; size: number} => ({name: file.name, size: file.size});
	return {
		type: 'sync-planned',
		dryRun: options.dryRun,
		...(options.chatId === undefined ? {} : {chatId: options.chatId}),
		...(options.manifest === undefined ? {} : {manifest: options.manifest}),
		upload: plan.upload.map(brief),
		replace: plan.replace.map(brief),
		awaiting: plan.awaiting.map(file => ({...brief(file), contentId: file.contentId})),
		unchanged: plan.unchanged.map(file => ({...brief(file), contentId: file.contentId})),
		...(options.deletions !== undefined && options.deletions.length > 0 ? {delete: options.deletions.map(({name, contentId}) => ({name, contentId}))} : {}),
	};
}

/**
 * Hashes the files and sorts them by the manifest, checking the unchanged ones with one round of
 * content searches (`hashing`: the hashes, when the caller started them earlier). In an existing chat (`existing`), the keys the manifest does not know are
 * looked up on the platform in the same round, so a key the chat holds is `replace`, never new.
 */
export async function planSync(files: FolderFile[], manifest: SyncManifest | undefined, where: {client: UploadClient; chatId: string; parallelism: number; signal: AbortSignal; existing: boolean; hashing?: Promise<HashedFile[]>}): Promise<SyncPlan> {
	const hashed = await (where.hashing ?? hashFiles(files));
	const candidates = manifest ? matchingContents(hashed, manifest) : [];
	const unknown = where.existing ? hashed.filter(file => manifest?.get(file.name) === undefined).map(file => file.name) : [];
	const [states, held] = await Promise.all([
		candidates.length === 0 ? new Map<string, string | undefined>() : searchStates({...where, contentIds: candidates}),
		unknown.length === 0 ? new Set<string>() : heldByChat({...where, keys: unknown}),
	]);
	return classify(hashed, manifest, states, held);
}

/** After each finalize: the file, its hash and content id go into the manifest, written before the next step. */
export function recorder(manifest: SyncManifest, plan: SyncPlan | undefined): (file: FolderFile, contentId: string, size: number) => Promise<void> {
	const hashes = new Map([...(plan?.upload ?? []), ...(plan?.replace ?? [])].map(file => [file.name, file.sha256]));
	return async (file, contentId, size) => {
		const sha256 = hashes.get(file.name);
		if (sha256 !== undefined) {
			await manifest.record(file.name, {size, sha256, contentId, ingestionState: null, uploadedAt: new Date().toISOString()});
		}
	};
}

/** Passes the events on, noting each ingestion state seen in the manifest. */
export function noteStates(manifest: SyncManifest, emit: UploadEventListener): UploadEventListener {
	return event => {
		if (event.type === 'ingestion-state') {
			manifest.noteState(event.contentId, event.state);
		}

		emit(event);
	};
}

/**
 * `--dry-run`: what a run would upload, replace and skip, with sizes. With `--chat` and the
 * platform (`platform`), the plan is the run's own (planSync: the chat checked, the manifest's
 * contents and the keys it does not know looked up, read-only), so the plan and the run agree;
 * without it, a new chat's plan, from the folder alone.
 */
export async function dryRunUpload(options: {folder: string; selection?: Selection; deletion?: DeletionOptions} & ({chatId?: undefined} | {chatId: string; manifest: {baseUrl: string; file(chatId: string): string}; platform: {client: UploadClient; signal: AbortSignal}}), emit: UploadEventListener): Promise<SyncPlan> {
	const {files, skipped} = await selectFiles(options.folder, options.selection);
	await checkReadable(options.folder, files);
	emit({type: 'files-listed', folder: options.folder, files: files.map(file => ({name: file.name, size: file.size, mimeType: file.mimeType})), totalBytes: files.reduce((sum, file) => sum + file.size, 0), skipped});
	const {chatId} = options;
	const manifest = chatId === undefined ? undefined : await SyncManifest.open(options.manifest.file(chatId), options.manifest.baseUrl, chatId);
	let plan: SyncPlan;
	if (chatId !== undefined) {
		const {client, signal} = options.platform;
		await checkChat(client, chatId, signal);
		plan = await planSync(files, manifest, {client, chatId, parallelism: 64, signal, existing: true});
	} else {
		// A new chat holds nothing: every file is uploaded.
		plan = classify(await hashFiles(files), undefined, new Map());
	}

	const kept = skipped.filter(entry => entry.kind === 'too-recent').map(entry => entry.name);
	const deletions = manifest ? await planDeletions({manifest, folder: options.folder, selected: files.map(file => file.name), kept, deletion: options.deletion}) : [];
	emit(planEvent(plan, {...(chatId === undefined ? {} : {chatId}), ...(manifest ? {manifest: manifest.file} : {}), dryRun: true, deletions}));
	return plan;
}
