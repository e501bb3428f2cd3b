/** The serve screen in a real terminal resized mid-run: the scrollback keeps what was printed, line by line and whole, and one frame of the status box. */
import {describe, expect, it} from 'vitest';
import {buildTestEvent} from '../../../source/receiver/intake/test-event.js';
import {runInPty} from '../../support/pty.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {deliver, env, has, listeningPort, platform, screenShows, serveScreenPlatform} from './pty-support.js';

serveScreenPlatform();

describe('serve screen in a terminal', () => {
	it.each([
		{columns: 60, rows: 24},
		{columns: 60, rows: 15},
	])('narrowed from 80×24 to $columns×$rows mid-run: the scrollback holds what was printed, line by line, and one frame', async ({columns, rows}) => {
		const dataDir = tempDataDir();
		const session = runInPty(['serve', '--port', '0', '--data-dir', dataDir], {env: env(), columns: 80, rows: 24, before: 'printed before serve started', resizable: true});
		try {
			const port = await listeningPort(() => session.output());
			await screenShows(session, has('q or Ctrl+C to stop'), 'the screen');
			const message = buildTestEvent('user-message', {text: 'Before the resize', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, message);
			// A whole frame (the terminal may have read only part of a write): the row, then the box to its bottom.
			const before = await waitFor(() => session.terminal().text(), {until: text => text.some(line => line.includes('user-message.created') && line.includes('logged')) && /^╰─+╯$/.test(text.at(-1) ?? ''), what: 'the logged row and the whole box'});
			const rowsAbove = before.slice(0, before.findIndex(line => line.startsWith('╭')));
			session.resize(columns, rows);
			// The box is redrawn at the new width.
			const after = await waitFor(() => session.terminal().text(), {until: text => text.some(line => /^╭─+╮$/.test(line) && Array.from(line).length === columns) && /^╰─+╯$/.test(text.at(-1) ?? ''), what: 'the whole box at the new width'});
			const terminal = session.terminal();
			expect(terminal.clears).toBe(0);
			expect(after[0]).toBe('printed before serve started');
			// What was above the screen is still there, re-wrapped at the new width, line by line.
			const rewrapped = rowsAbove.flatMap(line => {
				const characters = Array.from(line);
				const pieces: string[] = [];
				for (let start = 0; start === 0 || start < characters.length; start += columns) {
					pieces.push(characters.slice(start, start + columns).join('').trimEnd());
				}

				return pieces;
			});
			expect(after.slice(0, rewrapped.length)).toEqual(rewrapped);
			// Then the frame, once: no broken copy of the 80-column box is left.
			const rest = after.slice(rewrapped.length);
			if (rows >= 24) {
				expect(rest.filter(line => line.startsWith('╭'))).toHaveLength(1);
				expect(rest.filter(line => line.includes('endpoint secret'))).toHaveLength(1);
				expect(rest[0]).toMatch(/^╭─+╮$/);
			} else {
				// At 15 rows the old frame, re-wrapped, was taller than the window: the rows the window
				// pushed into the scrollback are out of reach; the screen itself holds one whole frame.
				const screen = terminal.screen();
				expect(screen.filter(line => line.startsWith('╭'))).toHaveLength(1);
				expect(screen.filter(line => line.includes('endpoint secret'))).toHaveLength(1);
			}

			for (const line of after) {
				expect(Array.from(line).length).toBeLessThanOrEqual(columns);
			}

			session.write('q');
			await session.exit();
		} finally {
			session.kill('SIGKILL');
		}
	});

	// No job runs meanwhile, so the screen is still when the window is resized: a frame written for
	// the old size while the terminal re-wraps (a spinner's, 12 a second) can still leave a broken
	// line, on this test terminal as on a real one. Live rows through resizes are in the upload's
	// test and in test/ui/live-terminal.test.tsx.
	it('shrunk from 200×50 to 60×15 and grown back mid-run: no stale copy of the box in the scrollback; rows printed narrow are kept whole, ids included', async () => {
		const dataDir = tempDataDir();
		const session = runInPty(['serve', '--port', '0', '--data-dir', dataDir], {env: env(), columns: 200, rows: 50, before: 'printed before serve started', resizable: true});
		// The last box (the frame's) at `columns`, whole.
		const frameAt = async (columns: number) => waitFor(() => session.terminal().text(), {
			until: text => Array.from(text.findLast(line => line.startsWith('╭')) ?? '').length === columns && /^╰─+╯$/.test(text.at(-1) ?? ''),
			what: `the whole frame at ${columns} columns`,
		});
		try {
			const port = await listeningPort(() => session.output());
			await screenShows(session, has('q or Ctrl+C to stop'), 'the screen');
			const message = buildTestEvent('user-message', {text: 'Before the shrink', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, message);
			await waitFor(() => session.terminal().text(), {until: text => text.some(line => line.includes('user-message.created') && line.includes('logged')), what: 'the logged row'});
			await frameAt(200);
			session.resize(60, 15);
			await frameAt(60);
			// A row printed while the window is narrow goes between the old frame's lines and the new frame.
			const narrowMessage = buildTestEvent('user-message', {text: 'While narrow', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, narrowMessage);
			await waitFor(() => session.terminal().text(), {until: text => text.some(line => line.includes('While narrow')) && /^╰─+╯$/.test(text.at(-1) ?? ''), what: 'the row printed at 60 columns'});
			session.resize(200, 50);
			const after = await frameAt(200);
			// The whole scrollback: what was printed, then one frame; nothing of the old ones is left.
			expect(after[0]).toBe('printed before serve started');
			expect(after.filter(line => line.includes('╭'))).toHaveLength(1);
			expect(after.filter(line => line.includes('╰'))).toHaveLength(1);
			expect(after.filter(line => line.includes('endpoint secret'))).toHaveLength(1);
			expect(after.filter(line => line.includes('received 2'))).toHaveLength(1);
			expect(after.filter(line => line.includes('user-message.created'))).toHaveLength(2);
			expect(after.filter(line => line.includes('While narrow'))).toHaveLength(1);
			expect(session.terminal().clears).toBe(0);

			// Narrow again, a finished row is printed at 60 columns: its detail names an event id,
			// which is whole or left out (the details have it), never cut.
			session.resize(60, 15);
			await frameAt(60);
			await deliver(port, message);
			const narrow = await waitFor(() => session.terminal().text(), {until: text => text.some(line => line.includes('duplicate of')), what: 'the duplicate row'});
			const row = narrow.find(line => line.includes('duplicate of')) ?? '';
			expect(Array.from(row).length).toBeLessThanOrEqual(60);
			for (const id of row.match(/evt_[\w…]*/g) ?? []) {
				expect(id).toBe(message.id);
			}

			session.write('q');
			await session.exit();
		} finally {
			session.kill('SIGKILL');
		}
	});
});
