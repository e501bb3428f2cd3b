/**
 * The serve screen in a real terminal (util-linux `script`) at 80×24 and 60×15, read through a
 * test terminal (screen and scrollback): an event resumed at start-up gets a row and counts; a
 * failed replay counts one failed event; r on an event that did not fail says why; no `replaying`
 * line is left behind; a running row shows its step; every figure and key hint of the status box
 * shows whole; the details' last line never cuts an id; no spacer row at 60×15. Resized mid-run,
 * the scrollback keeps what was printed, line by line and whole, and one frame of the status box.
 * At 80×24, / searches the rows, ? shows the help, p pauses, y copies an id (OSC 52) and e replays
 * an edited copy. Everything waits on what the screen shows, never on a time. One file: each run
 * starts a serve in a terminal, and they run one after another rather than beside the suite's
 * other process tests (split into three files, the whole suite took longer).
 */
import {describe, expect, it} from 'vitest';
import {buildTestEvent} from '../../../source/receiver/intake/test-event.js';
import {startCli} from '../../support/cli.js';
import {runInPty} from '../../support/pty.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {chosenEvent, deliver, env, has, listeningPort, model, platform, screenShows, serveScreenPlatform} from './pty-support.js';

serveScreenPlatform();

/** Leaves an event unfinished in `dataDir`: a serve is killed while the model holds its answer. */
async function leaveUnfinished(dataDir: string): Promise<string> {
	const event = await chosenEvent('Resume me');
	model.mode = 'hold';
	const first = startCli(['serve', '--port', '0', '--json', '--data-dir', dataDir], {env: env()});
	try {
		await waitFor(() => first.stdout().includes('"listening"') || first.child.exitCode !== null, {what: 'the first serve to listen'});
		const port = await listeningPort(() => first.stdout());
		await deliver(port, event);
		await waitFor(() => model.active > 0, {what: 'the held completion'});
	} finally {
		first.child.kill('SIGKILL');
		await first.closed;
	}

	return event.id;
}

describe('serve screen in a terminal', () => {
	it.each([
		{columns: 80, rows: 24},
		{columns: 60, rows: 15},
	])('at $columns×$rows: rows, counters, notices, status box and details all fit and agree', async ({columns, rows}) => {
		const dataDir = tempDataDir();
		const resumedId = await leaveUnfinished(dataDir);
		const failing = await chosenEvent('Fail me');
		const running = await chosenEvent('Hold me');
		model.mode = 'ok';
		const session = runInPty(['serve', '--port', '0', '--data-dir', dataDir], {env: env(), columns, rows, before: 'printed before serve started'});
		try {
			const port = await listeningPort(() => session.output());
			// The event resumed at start-up has a row and is counted.
			await screenShows(session, has('answered 1'), 'the resumed event counted');
			const text = () => session.terminal().text();
			await waitFor(() => text().some(line => /---\s+resumed\b.*answered in/.test(line)), {what: `the resumed row for ${resumedId}`});

			// A chosen event fails; r on a user message (it did not fail) says why nothing happened.
			// A model failing with a 5xx is transient (the answer would wait and retry): the platform
			// answers the completion with a body the spec does not allow, a permanent failure.
			platform.setFaults({rules: [{operation: 'chatCompletion', kind: 'empty-200'}]});
			await deliver(port, failing);
			await screenShows(session, has('failed 1'), 'the failure counted');
			const message = buildTestEvent('user-message', {text: 'Just saying hi', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, message);
			await waitFor(() => text().some(line => line.includes('logged')), {what: 'the logged message row'});
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith('› ') && line.includes('logged')), 'the message selected');
			session.write('r');
			const notice = await screenShows(session, screen => screen.join(' ').includes('did not fail'), 'why nothing was replayed');
			expect(notice.join(' ').replaceAll(/\s+/g, ' ')).toContain(`not replayed: ${message.id} did not fail`);

			// The failed event, replayed, fails again: one failed event, and the replay has its own row.
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith('› ') && line.includes('failed')), 'the failed row selected');
			session.write('r');
			await waitFor(() => text().some(line => /---\s+replay\b.*failed/.test(line)), {what: 'the replay row'});
			// The replay's notice goes once the replay has finished (the frame after its row, on a loaded
			// machine a moment later than the row itself).
			const afterReplay = await screenShows(session, screen => screen.join(' ').includes('processing 0') && !/replay(?:ing|ed) evt_/.test(screen.join(' ')), 'the replay finished and its notice gone');
			expect(afterReplay.join(' ')).toContain('failed 1');
			expect(afterReplay.join(' ')).not.toContain('failed 2');
			expect(afterReplay.join(' ')).not.toMatch(/replay(?:ing|ed) evt_/);

			// A running job shows its step, whole.
			platform.setFaults({rules: []});
			model.mode = 'hold';
			session.write('\u001B');
			await deliver(port, running);
			const live = await screenShows(session, screen => screen.some(line => /generating \(\d+ documents? found\)/.test(line)), 'the running row with its step');
			for (const line of live) {
				expect(Array.from(line).length).toBeLessThanOrEqual(columns);
			}

			// Every figure and key hint of the box is whole on the screen.
			const box = live.slice(live.findIndex(line => line.startsWith('╭'))).join(' ');
			for (const item of ['received 3', 'verified 3', 'rejected 0', 'duplicates 0', 'processing 1', 'answered 1', 'failed 1', '↑/↓ select', 'Enter details', 'r replay failed', 'q or Ctrl+C to stop', 'running jobs get 25 s to finish', `key …${platform.apiKey.slice(-4)}`, '1 endpoint secret']) {
				expect(box).toContain(item);
			}

			// The blank spacer above the box is there only when the terminal has room for it.
			const top = live.findIndex(line => line.startsWith('╭'));
			expect(live[top - 1]?.trim() === '').toBe(rows >= 20);

			// The details of the failed event: their last line names the whole id, or no id.
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith('› ')), 'a row selected');
			session.write('\r');
			const details = await screenShows(session, screen => screen.some(line => line.includes('more lines')), 'the cut details');
			const hint = details.find(line => line.includes('more lines')) ?? '';
			const ids = hint.match(/evt_\w+/g) ?? [];
			for (const id of ids) {
				expect(id).toBe(failing.id);
			}

			session.write('q');
			await screenShows(session, has('Stopping'), 'the drain');
			// A second q cuts the drain short: the one shutdown path still runs (no process.exit), names
			// the job left for the next serve, and exits 130.
			session.write('q');
			const {code} = await session.exit();
			expect(code).toBe(130);
			// The terminal wraps the sentence at its width, so it is compared without spaces.
			const squeezed = (text: string) => text.replaceAll(/\s+/g, '');
			expect(squeezed(session.terminal().text().join(''))).toContain(squeezed('Quit without waiting: 1 job left unfinished; the next serve on this data directory resumes them.'));
			expect(session.terminal().text()[0]).toBe('printed before serve started');
			expect(session.terminal().clears).toBe(0);
		} finally {
			session.kill('SIGKILL');
			model.mode = 'ok';
		}
	});

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

	it('at 80×24, / ? p y and e (a scripted $EDITOR) act on the rows', async () => {
		const dataDir = tempDataDir();
		const editor = 'sed -i s/Edit/Edited/';
		const session = runInPty(['serve', '--port', '0', '--data-dir', dataDir], {env: {...env(), EDITOR: editor, VISUAL: undefined}, columns: 80, rows: 24});
		try {
			const port = await listeningPort(() => session.output());
			await screenShows(session, has('? help'), 'the screen');
			const first = await chosenEvent('Edit me please');
			await deliver(port, first);
			const other = buildTestEvent('user-message', {text: 'Unrelated', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, other);
			await screenShows(session, screen => screen.some(line => line.includes('answered 1')), 'the answer');
			session.write('/');
			await screenShows(session, has('Enter search · Esc cancel'), 'the search line');
			session.write('please');
			await screenShows(session, has('/please'), 'the typed search');
			session.write('\r');
			await screenShows(session, has('search "please": 1 of 2 rows match'), 'the match count');
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith(`› ${first.id} · `)), 'the selected match');
			session.write('y');
			await screenShows(session, screen => screen.join(' ').includes('sent to the clipboard with OSC 52'), 'the copy notice');
			expect(session.output()).toContain(`\u001B]52;c;${Buffer.from(first.id).toString('base64')}\u0007`);
			session.write('?');
			await screenShows(session, has('Any key closes this help.'), 'the help');
			session.write('x');
			await screenShows(session, screen => !screen.some(line => line.includes('Any key closes')), 'the help closed');
			session.write('p');
			await screenShows(session, has('paused: 0 finished rows held (p resumes)'), 'paused');
			session.write('p');
			await screenShows(session, screen => !screen.some(line => line.includes('paused:')), 'resumed');
			session.write('e');
			const edited = await screenShows(session, has('Stored the edited copy'), 'the edited replay');
			expect(edited.join(' ')).toMatch(/replayed it: answered/);
			const copy = /as (evt_\S+) and replayed/.exec(edited.join(' ').replace(/\s+/g, ' '))?.[1] ?? '';
			expect(copy).not.toBe('');
			session.write('q');
			await session.exit();
			const show = startCli(['events', 'show', copy, '--json', '--data-dir', dataDir], {env: env()});
			await show.closed;
			expect(show.stdout()).toContain('Edited me please');
			expect(show.stdout()).toContain(first.id);
		} finally {
			session.kill('SIGKILL');
		}
	});
});
