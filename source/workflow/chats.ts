/**
 * The chats this machine synced, read from the upload manifests (manifest.ts) under the data
 * directory: `sync/<platform>/<chat id>.json`. Reads only; a file that is no manifest is named
 * apart, never a reason to fail the list.
 */
import {readdir, readFile} from 'node:fs/promises';
import path from 'node:path';
import {errorCode, errorMessage, isRecord} from '../format/value.js';
import {compareCodePoints} from './errors.js';
import {manifestVersion, readAbout} from './manifest.js';

export type SyncedChat = {
	chatId: string;
	baseUrl: string;
	/** The folder the last upload read (absolute); undefined for manifests written before it was recorded. */
	folder?: string;
	/** How many files the manifest records. */
	files: number;
	/** When the manifest was last written (ISO 8601). */
	updatedAt: string;
	/** The settings profile of the run that wrote it; undefined before profiles were recorded. */
	profile?: string;
	manifest: string;
};

export type SyncedChats = {chats: SyncedChat[]; unreadable: Array<{file: string; reason: string}>};

/** Most manifest files read in one listing (a bound on the loop). */
export const maxManifests = 10_000;

async function entriesOf(folder: string): Promise<string[]> {
	try {
		return await readdir(folder);
	} catch (error) {
		if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') {
			return [];
		}

		throw error;
	}
}

function summaryOf(file: string, parsed: unknown): SyncedChat | string {
	if (!isRecord(parsed) || parsed.version !== manifestVersion || typeof parsed.chatId !== 'string' || !isRecord(parsed.files)) {
		return `not a version ${manifestVersion} manifest`;
	}

	return {
		chatId: parsed.chatId,
		baseUrl: typeof parsed.baseUrl === 'string' ? parsed.baseUrl : '',
		...readAbout(parsed),
		files: Object.keys(parsed.files).length,
		updatedAt: typeof parsed.updatedAt === 'string' ? parsed.updatedAt : '',
		manifest: file,
	};
}

/** Every manifest under `dataDir`, the most recently synced first (then by chat id). */
export async function listSyncedChats(dataDir: string): Promise<SyncedChats> {
	const root = path.join(dataDir, 'sync');
	const found: SyncedChats = {chats: [], unreadable: []};
	let budget = maxManifests;
	for (const platform of (await entriesOf(root)).sort(compareCodePoints)) {
		for (const name of (await entriesOf(path.join(root, platform))).sort(compareCodePoints)) {
			if (!name.endsWith('.json') || budget-- <= 0) {
				continue;
			}

			const file = path.join(root, platform, name);
			let summary: SyncedChat | string;
			try {
				summary = summaryOf(file, JSON.parse(await readFile(file, 'utf8')) as unknown);
			} catch (error) {
				summary = errorCode(error) ?? errorMessage(error);
			}

			if (typeof summary === 'string') {
				found.unreadable.push({file, reason: summary});
			} else {
				found.chats.push(summary);
			}
		}
	}

	found.chats.sort((a, b) => compareCodePoints(b.updatedAt, a.updatedAt) || compareCodePoints(a.chatId, b.chatId));
	return found;
}
