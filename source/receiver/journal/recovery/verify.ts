/**
 * The journal's read-through at open. The check of integrity.ts sees a truncated or emptied file
 * and broken meta pages, not random bytes inside data pages; those can end the process that reads
 * them with a signal or an lmdb assertion, or make a serve acknowledge events while `events list`
 * fails. So before a process maps the journal, a child reads every database of it once, every key
 * and every value (reader.ts): a child that dies or fails means the journal is refused as damaged,
 * and only that child ends.
 *
 * The cost is one Node process plus one read of the file, measured in docs/faults.md.
 */
import {journalError} from '../errors.js';
import {readInChild} from '../reader.js';
import {dataFile} from '../store.js';

/**
 * Reads the whole journal in `folder` in a child; throws `journal-damaged` when that fails. Returns
 * each database's entry count. `write` (a process that will write it): the child also allocates
 * pages in a write transaction it aborts, which reads the free-page list (a damaged one passes
 * every read and aborts the first write).
 */
export async function verifyJournal(folder: string, dataDirectory: string, write: boolean): Promise<Record<string, number>> {
	let counts: Record<string, number> = {};
	const end = await readInChild(folder, {t: 'verify', write}, message => {
		if (message.t === 'counts') {
			counts = message.counts;
		}
	});
	if (!end.complete) {
		const file = dataFile(folder);
		const reason = end.failure ?? 'it could not be read';
		throw journalError('journal-damaged', {directory: dataDirectory, file, reason}, `the journal file ${file} is damaged: ${reason}`);
	}

	return counts;
}
