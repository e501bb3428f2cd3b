/**
 * The sync manifest: per platform and chat, what was uploaded under each key (size, SHA-256,
 * content id, last ingestion state seen). It lives in the data directory as
 * `sync/<platform>/<chat id>.json` and is rewritten atomically (a temporary file renamed over it)
 * after each file's finalize, so a run killed half way leaves every finished file recorded.
 */
import {createHash} from 'node:crypto';
import {constants} from 'node:fs';
import {access, readFile, rename, rm, stat} from 'node:fs/promises';
import path from 'node:path';
import {errorCode, errorMessage, isRecord} from '../format/value.js';
import {makePrivateDir, writePrivateFile} from '../private-files.js';
import {folderAccess} from '../private-folder.js';
import {WorkflowError} from './errors.js';

export type ManifestEntry = {
	size: number;
	/** Lowercase hex SHA-256 of the bytes uploaded. */
	sha256: string;
	contentId: string;
	/** The ingestion state last seen; null between the finalize and the first check. */
	ingestionState: string | null;
	/** When the bytes were finalized (ISO 8601). */
	uploadedAt: string;
};

export const manifestVersion = 1;

/** What a manifest says about its sync besides the files: the folder it came from and the settings profile used. */
export type ManifestAbout = {folder?: string; profile?: string};

/** The `folder` and `profile` fields of a parsed manifest, where they are strings. */
export function readAbout(parsed: Record<string, unknown>): ManifestAbout {
	return {
		...(typeof parsed.folder === 'string' ? {folder: parsed.folder} : {}),
		...(typeof parsed.profile === 'string' ? {profile: parsed.profile} : {}),
	};
}

/** The manifest file cannot be read or is not a manifest; the message names the file. */
export class ManifestDamagedError extends WorkflowError<'manifest-damaged', {file: string; detail: string}> {
	constructor(readonly file: string, detail: string) {
		super('manifest-damaged', {file, detail}, `The sync manifest ${file} cannot be used: ${detail}`);
	}
}

/** The manifest could not be written; the upload stops so a rerun does not redo finished work blindly. */
export class ManifestWriteError extends WorkflowError<'manifest-write-failed', {file: string; detail: string}> {
	constructor(readonly file: string, cause: unknown) {
		const detail = errorCode(cause) ?? errorMessage(cause);
		super('manifest-write-failed', {file, detail}, `The sync manifest ${file} could not be written: ${detail}`, {cause});
	}
}

/**
 * The data directory cannot hold manifests (read-only, not a folder, no permission). Found before
 * any platform call, so no chat is created that a rerun would create again.
 */
export class DataDirNotWritableError extends WorkflowError<'data-dir-not-writable', {dataDir: string; folder: string; detail: string}> {
	constructor(readonly dataDir: string, folder: string, cause: unknown) {
		const detail = errorCode(cause) ?? errorMessage(cause);
		super('data-dir-not-writable', {dataDir, folder, detail}, `The data directory ${dataDir} is not writable (${detail} on ${folder}), so no upload manifest can be kept`, {cause});
	}
}

/**
 * A recursive mkdir reports ENOENT when a parent could not be made on a read-only file system
 * (EROFS) or, on some systems, without permission: the nearest folder that exists, with the
 * error writing in it gives (EROFS, EACCES), names the real cause. Undefined when it takes writes.
 */
async function blockedAncestor(folder: string): Promise<{folder: string; error: unknown} | undefined> {
	let current = folder;
	for (let depth = 0; depth < 64; depth++) {
		const exists = await stat(current).then(() => true, () => false);
		if (exists) {
			return access(current, constants.W_OK).then(() => undefined, (error: unknown) => ({folder: current, error}));
		}

		const parent = path.dirname(current);
		if (parent === current) {
			return undefined;
		}

		current = parent;
	}

	return undefined;
}

/** Checks that manifests can be written in `folder` (inside `dataDir`): creates it and writes, then removes, a probe file. */
export async function checkWritable(dataDir: string, folder: string): Promise<void> {
	const probe = path.join(folder, `.probe.${process.pid}.tmp`);
	// Another user's folder (or a path through another user's link) is refused before anything is written.
	folderAccess(dataDir, 'data');
	try {
		makePrivateDir(folder);
		await writePrivateFile(probe, '');
		await rm(probe, {force: true});
	} catch (error) {
		await rm(probe, {force: true}).catch(() => undefined);
		const failed = error as NodeJS.ErrnoException | undefined;
		const found = errorCode(error) === 'ENOENT' || failed?.syscall === 'mkdir' ? await blockedAncestor(folder) : undefined;
		// Otherwise the folder the error names, when it is one on the way (a file system that takes no new folder there).
		const failedAt = failed?.path;
		const named = failedAt !== undefined && `${folder}${path.sep}`.startsWith(`${failedAt}${path.sep}`) ? failedAt : folder;
		throw found ? new DataDirNotWritableError(dataDir, found.folder, found.error) : new DataDirNotWritableError(dataDir, named, error);
	}
}

/** A folder name for a platform: its host (readable) and a short hash of its whole base URL. */
export function platformFolder(baseUrl: string): string {
	const normalized = baseUrl.trim().replace(/\/+$/, '');
	let host = 'platform';
	try {
		host = new URL(normalized).host || host;
	} catch {
		// Not a URL: the hash alone tells platforms apart.
	}

	const hash = createHash('sha256').update(normalized).digest('hex').slice(0, 12);
	return `${host.replace(/[^\w.-]+/g, '_')}-${hash}`;
}

/** Where the manifest of `chatId` on the platform at `baseUrl` lives inside `dataDir`. */
export function manifestPath(dataDir: string, baseUrl: string, chatId: string): string {
	return path.join(dataDir, 'sync', platformFolder(baseUrl), `${encodeURIComponent(chatId)}.json`);
}

/** Bytes read at a time when hashing a file. */
function readEntry(value: unknown): ManifestEntry | undefined {
	if (!isRecord(value)) {
		return undefined;
	}

	const {size, sha256, contentId, ingestionState, uploadedAt} = value;
	if (typeof size !== 'number' || typeof sha256 !== 'string' || !/^[\da-f]{64}$/.test(sha256) || typeof contentId !== 'string' || contentId === '') {
		return undefined;
	}

	return {
		size,
		sha256,
		contentId,
		ingestionState: typeof ingestionState === 'string' ? ingestionState : null,
		uploadedAt: typeof uploadedAt === 'string' ? uploadedAt : '',
	};
}

/** One chat's manifest in memory; `record` and `save` keep the file in step. */
export class SyncManifest {
	private writing: Promise<void> = Promise.resolve();
	private sequence = 0;
	/** The folder and profile written with the files (kept from the file read, updated by `describe`). */
	private about: ManifestAbout = {};

	private constructor(
		readonly file: string,
		readonly baseUrl: string,
		readonly chatId: string,
		readonly entries: Map<string, ManifestEntry>,
	) {}

	/** Reads the manifest at `file`; a missing file is an empty manifest. */
	static async open(file: string, baseUrl: string, chatId: string): Promise<SyncManifest> {
		let text: string;
		try {
			text = await readFile(file, 'utf8');
		} catch (error) {
			if (errorCode(error) === 'ENOENT') {
				return new SyncManifest(file, baseUrl, chatId, new Map());
			}

			throw new ManifestDamagedError(file, errorCode(error) ?? errorMessage(error));
		}

		let parsed: unknown;
		try {
			parsed = JSON.parse(text) as unknown;
		} catch (error) {
			throw new ManifestDamagedError(file, `not valid JSON (${errorMessage(error).replace(/\.$/, '')})`);
		}

		if (!isRecord(parsed) || parsed.version !== manifestVersion || !isRecord(parsed.files)) {
			throw new ManifestDamagedError(file, `not a version ${manifestVersion} manifest`);
		}

		if (parsed.chatId !== chatId) {
			throw new ManifestDamagedError(file, `it belongs to chat ${String(parsed.chatId)}`);
		}

		const entries = new Map<string, ManifestEntry>();
		for (const [key, value] of Object.entries(parsed.files)) {
			const entry = readEntry(value);
			if (entry !== undefined) {
				entries.set(key, entry);
			}
		}

		const manifest = new SyncManifest(file, baseUrl, chatId, entries);
		manifest.about = readAbout(parsed);
		return manifest;
	}

	/** An empty manifest that is never read from disk (a new chat). */
	static empty(file: string, baseUrl: string, chatId: string): SyncManifest {
		return new SyncManifest(file, baseUrl, chatId, new Map());
	}

	/** Sets the folder and profile the next write records. */
	describe(about: ManifestAbout): void {
		this.about = {...this.about, ...about};
	}

	get(key: string): ManifestEntry | undefined {
		return this.entries.get(key);
	}

	/** Records a finalized upload and writes the file; resolves once it is on disk. */
	async record(key: string, entry: ManifestEntry): Promise<void> {
		this.entries.set(key, entry);
		await this.save();
	}

	/** Forgets a key (its content was deleted) and writes the file; resolves once it is on disk. */
	async drop(key: string): Promise<void> {
		this.entries.delete(key);
		await this.save();
	}

	/** Notes the ingestion state last seen for a content (written by the next save). */
	noteState(contentId: string, state: string): void {
		for (const entry of this.entries.values()) {
			if (entry.contentId === contentId) {
				entry.ingestionState = state;
			}
		}
	}

	/** Writes the whole manifest atomically; writes are serialized, each one of the latest state. */
	async save(): Promise<void> {
		const next = this.writing.then(async () => this.write());
		this.writing = next.catch(() => undefined);
		await next;
	}

	private async write(): Promise<void> {
		const files: Record<string, ManifestEntry> = {};
		for (const [key, entry] of [...this.entries].sort(([a], [b]) => (a < b ? -1 : (a > b ? 1 : 0)))) {
			files[key] = entry;
		}

		const body = `${JSON.stringify({version: manifestVersion, baseUrl: this.baseUrl, chatId: this.chatId, ...this.about, updatedAt: new Date().toISOString(), files}, null, '\t')}\n`;
		const temporary = `${this.file}.${process.pid}.${++this.sequence}.tmp`;
		try {
			makePrivateDir(path.dirname(this.file));
			await writePrivateFile(temporary, body);
			await rename(temporary, this.file);
		} catch (error) {
			await rm(temporary, {force: true}).catch(() => undefined);
			throw new ManifestWriteError(this.file, error);
		}
	}
}
