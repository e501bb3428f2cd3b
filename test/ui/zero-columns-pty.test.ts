/**
 * A pseudo-terminal that reports 0 columns and 0 rows (`stty cols 0 rows 0`, as a pty never sized)
 * is taken as 80×24 (source/terminal.ts): the inspector lays its table out at 80 columns, all six
 * columns with whole ids, rather than squeezing it into its narrowest layout. Under NO_COLOR (the
 * test CLI's default) the selected row carries `›`.
 */
import {describe, expect, it} from 'vitest';
import {runInPty, stripAnsi} from '../support/pty.js';
import {tempDataDir} from '../receiver/journal/helpers.js';
import {fillJournal, fixtureEvent} from './events/journal-fixture.js';

describe('a terminal that reports 0 columns and 0 rows', () => {
	it('is laid out as 80×24: the inspector shows every column, the selected row marked under NO_COLOR', async () => {
		const directory = tempDataDir();
		await fillJournal(directory, 5, {newestMs: Date.now() - 60_000});
		const session = runInPty(['events'], {env: {PLATFORM_TUI_DATA_DIR: directory, NO_COLOR: '1'}, columns: 0, rows: 0});
		try {
			const newest = fixtureEvent(4).id;
			await session.waitFor(newest);
			const shown = await session.waitFor(/DURATION/);
			const lines = stripAnsi(shown).split(/\r?\n|\r/);
			const heading = lines.find(line => line.includes('DURATION')) ?? '';
			expect(heading).toMatch(/TIME\s+ID\s+TYPE\s+STATUS\s+CHAT\s+DURATION/);
			expect(lines.some(line => line.startsWith('›') && line.includes(newest))).toBe(true);
		} finally {
			session.write('q');
		}

		expect((await session.exit()).code).toBe(0);
	});
});
