/** Whether the journal's directory takes writes now: a small file written and removed in it. */
import {unlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {errorMessage} from '../../format/value.js';

/** Undefined when the directory is writable, else why not. */
export function unwritableReason(directory: string): string | undefined {
	const probe = path.join(directory, '.writable-check');
	try {
		writeFileSync(probe, String(process.pid));
		unlinkSync(probe);
		return undefined;
	} catch (error) {
		return `the journal in ${directory} cannot be written: ${errorMessage(error)}`;
	}
}
