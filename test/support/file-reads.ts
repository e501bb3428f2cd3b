/**
 * Counts the reads of one file while an action runs: every reader of the config file goes through
 * node:fs's readFileSync, which is watched (the named imports of it too, once synced) and then put back.
 */
import fs from 'node:fs';
import {syncBuiltinESMExports} from 'node:module';
import {vi} from 'vitest';

export async function readsOf(file: string, action: () => Promise<void>): Promise<number> {
	const readFile = vi.spyOn(fs, 'readFileSync');
	syncBuiltinESMExports();
	try {
		await action();
		return readFile.mock.calls.filter(([path]) => path === file).length;
	} finally {
		readFile.mockRestore();
		syncBuiltinESMExports();
	}
}
