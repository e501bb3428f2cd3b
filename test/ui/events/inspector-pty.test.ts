/**
 * The event inspector in a real terminal (util-linux `script`) at 80×24 and 60×15, read through a
 * test terminal: the first page with whole ids, paging to the oldest event, search, filter, the
 * detail pane, copy, pause and following events another process writes, the help overlay,
 * edit-and-replay with a scripted $EDITOR, and q. Everything waits on what the screen shows.
 */
import {chmodSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import {runCli} from '../../support/cli.js';
import {platformEnv, startPlatform} from '../../support/platform.js';
import {runInPty, type PtySession} from '../../support/pty.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {inspectorKeys} from '../../../source/ui/events/inspector-format.js';
import {fillJournal, fixtureEvent} from './journal-fixture.js';

let platform: LocalPlatform;

beforeAll(async () => {
	platform = (await startPlatform()).platform;
});

afterAll(async () => {
	await platform.close();
});

const idOf = (index: number) => fixtureEvent(index).id;

async function screenShows(session: PtySession, test: (screen: string) => boolean, what: string): Promise<string> {
	let last = '';
	try {
		await waitFor(() => {
			last = session.terminal().screen().join('\n');
			return test(last);
		});
	} catch {
		throw new Error(`the screen never showed ${what}; it showed:\n${last}`);
	}

	return last;
}

const shows = async (session: PtySession, text: string) => screenShows(session, screen => screen.includes(text), JSON.stringify(text));

// At 60×15 as users run it, without NODE_ENV (React's production build, source/ui/react-build.ts);
// at 80×24 with the test run's NODE_ENV=test (the development build, with its checks).
describe.each([[80, 24, 'test'], [60, 15, undefined]])('the inspector at %i×%i (NODE_ENV %s)', (columns, rows, nodeEnv) => {
	it('pages, searches, filters, shows details, copies, pauses, helps, edits and replays, quits', async () => {
		const directory = tempDataDir();
		const newestMs = Date.now() - 60_000;
		await fillJournal(directory, 300, {newestMs});
		const editor = path.join(tempDataDir(), 'editor.sh');
		writeFileSync(editor, '#!/bin/sh\nsed -i \'s/question number 295/edited question/\' "$1"\n');
		chmodSync(editor, 0o755);
		const session = runInPty(['events'], {env: {...platformEnv(platform), PLATFORM_TUI_DATA_DIR: directory, EDITOR: editor, VISUAL: undefined, NODE_ENV: nodeEnv, PLATFORM_TUI_TEST_TIMERS: nodeEnv && '1'}, columns, rows});
		try {
			// The first page: newest first, ids whole, no line wider than the window.
			let screen = await shows(session, idOf(299));
			expect(screen).toContain(idOf(298));
			expect(screen).toContain('following');
			expect(session.terminal().screen().every(line => line.length <= columns)).toBe(true);

			// Paging to the oldest event: the cursor's row is on screen (the footer's lines come off
			// the list's rows); g goes back to the newest.
			session.write('\u001B[6~'.repeat(30));
			await shows(session, idOf(0));
			session.write('g');
			await shows(session, idOf(299));

			// Search over the body text.
			session.write('/');
			await shows(session, '/▏');
			session.write('question number 150');
			await shows(session, 'question number 150▏');
			session.write('\r');
			screen = await screenShows(session, text => text.includes('search "question number 150"') && text.includes(idOf(150)), 'the search\'s one event');
			expect(screen).not.toContain(idOf(299));

			// Esc clears; a filter shows in the header and keeps only failed events.
			session.write('\u001B');
			await shows(session, idOf(299));
			session.write('f');
			await shows(session, 'filter: ');
			session.write('status=failed');
			await shows(session, 'status=failed▏');
			session.write('\r');
			screen = await screenShows(session, text => text.split('\n')[0]?.includes('following · status=failed') === true && text.includes(idOf(295)) && !text.includes(idOf(299)), 'the failed events');
			expect(screen.split('\n').filter(line => line.includes('evt_')).every(line => / fail/.test(line))).toBe(true);

			// The detail pane of the selected event (295, failed): signature masked, body, error.
			session.write('\r');
			screen = await shows(session, 'x-platform-signature');
			expect(screen).toContain('…cdef');
			expect(screen).not.toContain('feedfacecafebeef');
			expect(screen).toContain(`Event     ${idOf(295)}`);

			// Copy: OSC 52 sent, and the id printed (this terminal gives no sign it takes OSC 52).
			session.write('y');
			await shows(session, `Copy ${idOf(295)}`);
			expect(session.output()).toContain(`\u001B]52;c;${Buffer.from(idOf(295)).toString('base64')}\u0007`);

			// Edit and replay: the scripted editor changes the body; a new event is stored and processed.
			session.write('e');
			screen = await screenShows(session, text => /as evt_\w+ and replayed it: \w+/.test(text.replaceAll('\n', ' ')), 'the edit\'s outcome');
			session.write('\u001B');
			await shows(session, 'TIME');
			session.write('\u001B');
			await shows(session, idOf(299));

			// Pause: events written meanwhile by another process are counted, shown on resume.
			session.write('p');
			await shows(session, 'paused');
			await fillJournal(directory, 2, {newestMs: Date.now(), event: index => ({...fixtureEvent(100_000 + index)})});
			await shows(session, 'paused (');
			session.write('p');
			await shows(session, idOf(100_001));

			// Help lists every key; any key closes it.
			session.write('?');
			screen = await shows(session, 'Any key closes this help.');
			for (const key of inspectorKeys) {
				expect(screen).toContain(key.keys);
			}

			session.write('x');
			await screenShows(session, text => !text.includes('Any key closes this help.') && text.includes('TIME'), 'the list again');

			session.write('q');
			const {code} = await session.exit();
			expect(code).toBe(0);
		} finally {
			session.kill('SIGKILL');
		}

		// The edited copy is an event of its own naming the original.
		const listed = await runCli(['events', 'list', '--json', '--data-dir', directory, '--limit', '500']);
		// The event lines; the envelope's last line is the run's result (docs/json.md).
		const copies = listed.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; id: string}).filter(event => event.type === 'event' && !event.id.startsWith('evt_0000'));
		expect(copies.length).toBe(1);
		const shown = JSON.parse((await runCli(['events', 'show', copies[0]?.id ?? '', '--json', '--data-dir', directory])).stdout.split('\n')[0] ?? '') as {editedFrom: string; body: {payload: {userMessage: {text: string}}}};
		expect(shown.editedFrom).toBe(idOf(295));
		expect(shown.body.payload.userMessage.text).toBe('edited question');
	});
});

describe('leaving the inspector', () => {
	it('Ctrl+C quits with exit code 0, as the readme\'s table of exit codes says; the footer names the cursor\'s row', async () => {
		const directory = tempDataDir();
		await fillJournal(directory, 5, {newestMs: Date.now() - 60_000});
		const session = runInPty(['events'], {env: {...platformEnv(platform), PLATFORM_TUI_DATA_DIR: directory}, columns: 60, rows: 15});
		try {
			// A frame may arrive in pieces: wait for the rows and the footer both.
			const screen = await screenShows(session, text => text.includes(idOf(4)) && text.includes('Enter detail'), 'the rows and the footer');
			expect(screen.split('\n').find(line => line.includes('Enter detail'))).toMatch(/^row 1 · Enter detail/);
			session.write('\u0003');
			const {code} = await session.exit();
			expect(code).toBe(0);
		} finally {
			session.kill('SIGKILL');
		}

		// The table says which exit the inspector's q and Ctrl+C give.
		for (const page of ['../../../readme.md', '../../../docs/errors.md']) {
			const rows = readFileSync(new URL(page, import.meta.url), 'utf8').split('\n').filter(line => /^\| \d+ \|/.test(line));
			const inspector = rows.filter(line => /`events` inspector left with `q` or Ctrl\+C/.test(line));
			expect(inspector.map(line => line.split('|')[1]?.trim())).toEqual(['0']);
		}
	});
});
