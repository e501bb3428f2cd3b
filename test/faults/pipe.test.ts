import {execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';

describe('output through a pipe', () => {
	it('events list --json through a reader that waits before reading gets every line', async () => {
		if (!existsSync(cliPath)) {
			throw new Error(`${cliPath} is missing; run \`npm run build\` first`);
		}

		const directory = tempDataDir();
		const journal = await openJournal({directory, flushBeforeAck: false});
		const count = 1500;
		await Promise.all(Array.from({length: count}, async () => journal.accept(newEvent({status: 'ignored', body: 'x'.repeat(400)}))));

		await journal.close();
		// More than a pipe buffer (64 KiB) of lines, read only after a pause longer than the command
		// takes: a process that exits before its output is flushed cuts them.
		const lines = execFileSync('sh', ['-c', `"${process.execPath}" "${cliPath}" events list --json --limit 100000 --data-dir "${directory}" | (sleep 3; wc -l)`], {env: childEnv(), encoding: 'utf8'});
		expect(Number(lines.trim())).toBe(count + 1);
	});
});
