/**
 * `--delete`: the chat's contents whose key the manifest holds but whose file is gone (or, with
 * `--delete-excluded`, still there but no longer selected) are deleted on the platform and dropped
 * from the manifest. `maxDelete` refuses a larger run before anything is sent or deleted.
 */
import {lstat} from 'node:fs/promises';
import path from 'node:path';
import {errorMessage} from '../format/value.js';
import {PlatformApiError} from '../platform/errors.js';
import {compareCodePoints, WorkflowError} from './errors.js';
import type {UploadEventListener} from './events.js';
import {eachLimit} from './ingestion.js';
import type {SyncManifest} from './manifest.js';
import type {UploadClient} from './types.js';

export const defaultMaxDelete = 50;

export type DeletionOptions = {
	/** Delete the contents whose file is gone from the folder. */
	delete: boolean;
	/** Also delete the contents whose file is still there but left out of the selection (implies `delete`). */
	deleteExcluded: boolean;
	/** Most deletions one run may make; more refuses the run before any platform call. */
	maxDelete: number;
};

export type Deletion = {name: string; contentId: string; reason: 'gone' | 'excluded'};

/** More deletions than `--max-delete` allows: refused before anything was sent or deleted. */
export class TooManyDeletionsError extends WorkflowError<'too-many-deletions', {chatId: string; count: number; maxDelete: number}> {
	constructor(readonly chatId: string, readonly count: number, readonly maxDelete: number) {
		super('too-many-deletions', {chatId, count, maxDelete}, `The run would delete ${count} contents from chat ${chatId}, more than the ${maxDelete} allowed`);
	}
}

/** A delete failed; the manifest keeps the content's entry, so the next run tries again. */
export class DeleteFailedError extends WorkflowError<'delete-failed', {chatId: string; file: string; contentId: string; detail: string}> {
	constructor(chatId: string, readonly fileName: string, contentId: string, cause: unknown) {
		const detail = errorMessage(cause).replace(/\.$/, '');
		super('delete-failed', {chatId, file: fileName, contentId, detail}, `Deleting ${fileName} (content ${contentId}) from chat ${chatId} failed: ${detail}`, {cause});
	}
}

async function isOnDisk(folder: string, key: string): Promise<boolean> {
	try {
		await lstat(path.join(folder, ...key.split('/')));
		return true;
	} catch {
		return false;
	}
}

/**
 * What `--delete` would delete: the manifest's keys that no selected file has. A key whose file
 * still exists is only deleted with `deleteExcluded`; `kept` keys (files held back by --min-age)
 * never are. Refuses with TooManyDeletionsError above `maxDelete`.
 */
export async function planDeletions(options: {manifest: SyncManifest; folder: string; selected: readonly string[]; kept: readonly string[]; deletion: DeletionOptions | undefined}): Promise<Deletion[]> {
	const {manifest, deletion} = options;
	if (deletion === undefined || (!deletion.delete && !deletion.deleteExcluded)) {
		return [];
	}

	const skip = new Set([...options.selected, ...options.kept]);
	const deletions: Deletion[] = [];
	for (const [name, entry] of [...manifest.entries].sort(([a], [b]) => compareCodePoints(a, b))) {
		if (skip.has(name)) {
			continue;
		}

		const present = await isOnDisk(options.folder, name);
		if (!present || deletion.deleteExcluded) {
			deletions.push({name, contentId: entry.contentId, reason: present ? 'excluded' : 'gone'});
		}
	}

	if (deletions.length > deletion.maxDelete) {
		throw new TooManyDeletionsError(manifest.chatId, deletions.length, deletion.maxDelete);
	}

	return deletions;
}

/**
 * Deletes the contents (a few at a time); each one deleted, or already gone (404), leaves the
 * manifest at once. The first failure stops the run with DeleteFailedError, its entry kept.
 */
export async function deleteContents(options: {client: UploadClient; manifest: SyncManifest; deletions: readonly Deletion[]; parallelism: number; signal: AbortSignal; emit: UploadEventListener}): Promise<void> {
	const {client, manifest, signal, emit} = options;
	await eachLimit(options.deletions, options.parallelism, async ({name, contentId}) => {
		try {
			await client.deleteContent(contentId, manifest.chatId, {signal});
		} catch (error) {
			signal.throwIfAborted();
			if (!(error instanceof PlatformApiError && error.status === 404)) {
				emit({type: 'delete-failed', name, contentId, message: errorMessage(error)});
				throw new DeleteFailedError(manifest.chatId, name, contentId, error);
			}
		}

		await manifest.drop(name);
		emit({type: 'content-deleted', name, contentId});
	});
}
