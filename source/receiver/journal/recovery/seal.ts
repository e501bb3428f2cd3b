/**
 * The clean-stop seal. `seal.json` beside the data file records the file as `serve` left it when
 * it closed the journal: its length and a SHA-256 of its bytes, taken after LMDB closed it. A later
 * open that finds the file byte for byte as sealed skips the read-through in a child (verify.ts):
 * those are the bytes LMDB itself wrote and closed, and any change to them since (a truncation,
 * random bytes in a page, another copy put in its place) changes the hash and brings the
 * read-through back. Every process that may write the journal breaks the seal before it maps the
 * file; a seal vouches for the exact bytes it names, so whatever a later writer changed (a commit
 * cut short by its death included) fails it. No seal is written after a commit of the run failed.
 *
 * The file is hashed with plain reads, never mapped: a damaged file cannot end this process.
 */
import {readdirSync, readFileSync, renameSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {sha256File} from '../../../file-hash.js';
import {dataFile} from '../store.js';
import {writePrivateFileSync} from '../../../private-files.js';

type Seal = {size: number; sha256: string};

export function sealFile(folder: string): string {
	return path.join(folder, 'seal.json');
}

function readSeal(folder: string): Seal | undefined {
	try {
		const seal = JSON.parse(readFileSync(sealFile(folder), 'utf8')) as Partial<Seal>;
		return typeof seal.size === 'number' && typeof seal.sha256 === 'string' ? {size: seal.size, sha256: seal.sha256} : undefined;
	} catch {
		return undefined;
	}
}

/** Whether the journal in `folder` is byte for byte as its last clean stop sealed it. */
export async function matchesSeal(folder: string): Promise<boolean> {
	const seal = readSeal(folder);
	if (!seal) {
		return false;
	}

	try {
		const file = dataFile(folder);
		// A file of another length is not read at all.
		return statSync(file).size === seal.size && await sha256File(file) === seal.sha256;
	} catch {
		return false;
	}
}

/** Removes the seal, and any a writer died while writing: the journal is about to be written. */
export function breakSeal(folder: string): void {
	rmSync(sealFile(folder), {force: true});
	for (const entry of readdirSync(folder)) {
		if (entry.startsWith('seal.json.') && entry.endsWith('.tmp')) {
			rmSync(path.join(folder, entry), {force: true});
		}
	}
}

/**
 * Seals the journal in `folder` after its writer closed it cleanly. Best effort: a seal that
 * cannot be written leaves none, and the next open reads the journal through.
 */
export async function sealJournal(folder: string): Promise<void> {
	const target = sealFile(folder);
	const temporary = `${target}.${process.pid}.tmp`;
	try {
		const file = dataFile(folder);
		const seal: Seal = {size: statSync(file).size, sha256: await sha256File(file)};
		writePrivateFileSync(temporary, `${JSON.stringify(seal)}\n`);
		renameSync(temporary, target);
	} catch {
		rmSync(temporary, {force: true});
	}
}
