/**
 * The inspector's pure modules: the query (search, filters, header text), the window over pages of
 * a journal (read only as the cursor moves, rows let go past the bound, following), and the help
 * and detail lines. The pages come from a real journal filled directly in LMDB.
 */
import {readFileSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {JournalBackend, openJournal} from '../../../source/receiver/journal/index.js';
import {colourJsonLine, detailLines, footerHint, helpLines, inspectorKeys} from '../../../source/ui/events/inspector-format.js';
import {filterText, parseFilterText, queryMatcher, queryText} from '../../../source/ui/events/inspector-query.js';
import {cursorPosition, loadNewer, maxRows, moveCursor, openWindow, type PageRead, type Reader} from '../../../source/ui/events/inspector-window.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {fillJournal, fixtureEvent} from './journal-fixture.js';

const count = 2000;
let directory: string;
let journal: JournalBackend;
const reads: PageRead[] = [];
let read: Reader;

beforeAll(async () => {
	directory = tempDataDir();
	await fillJournal(directory, count, {newestMs: Date.now() - 10_000});
	const opened = await openJournal({directory, mode: 'read', verify: false});
	if (!(opened instanceof JournalBackend)) {
		throw new TypeError('expected the journal');
	}

	journal = opened;
	read = query => {
		reads.push(query);
		return journal.readPage(query);
	};
});

afterAll(async () => {
	await journal.close();
});

describe('the query', () => {
	it('reads filters, refuses what it cannot read, and writes them back', () => {
		const parsed = parseFilterText('status=failed type=external-module-chosen since=1h until=10m');
		expect(parsed).toEqual({filter: {status: 'failed', type: 'external-module-chosen', sinceMs: 3_600_000, untilMs: 600_000}});
		expect('filter' in parsed && filterText(parsed.filter)).toBe('status=failed type=external-module-chosen since=1h until=10m');
		expect(parseFilterText('status=done')).toEqual({error: 'status must be one of received, processing, waiting, answered, failed, logged, ignored; got "done"'});
		expect(parseFilterText('since=soon')).toMatchObject({error: expect.stringContaining('since must be a duration') as unknown});
		expect(parseFilterText('colour=red')).toMatchObject({error: expect.stringContaining('"colour=red" is not a filter') as unknown});
		expect(queryText({search: 'refund', filter: {status: 'failed'}})).toBe('search "refund" · status=failed');
	});

	it('searches type, id, chat id and body text, case-insensitively', () => {
		const event = {...fixtureEvent(8), receivedAt: '', updatedAt: '', headers: {}, steps: [], attempts: 0} as StoredEvent;
		const matches = (search: string) => queryMatcher({search, filter: {}})?.(event);
		expect(matches('QUESTION NUMBER 8')).toBe(true);
		expect(matches(event.id.slice(-6))).toBe(true);
		expect(matches('chat_0008')).toBe(true);
		expect(matches('module.chosen')).toBe(true);
		expect(matches('no such text')).toBe(false);
		expect(queryMatcher({search: '', filter: {}})).toBeUndefined();
	});
});

describe('the window over the journal', () => {
	it('reads the first page only, newest first', () => {
		reads.length = 0;
		const window = openWindow(read, {}, 40);
		expect(reads).toHaveLength(1);
		expect(window.rows).toHaveLength(40);
		expect(window.rows[0]?.event.id).toBe(fixtureEvent(count - 1).id);
		expect(window.rows[39]?.event.id).toBe(fixtureEvent(count - 40).id);
		expect(window.olderEnd).toBe(false);
	});

	it('reads further pages as the cursor moves, and lets go of rows past the bound', () => {
		let window = openWindow(read, {}, 40);
		for (let step = 0; step < 40; step++) {
			window = moveCursor(window, 20, 20, read, {});
		}

		expect(window.rows.length).toBeLessThanOrEqual(maxRows + 40);
		expect(window.rows[window.cursor]?.event.id).toBe(fixtureEvent(count - 1 - 800).id);
		expect(window.atNewest).toBe(false);
		// Back up to the top: the rows let go are read again.
		for (let step = 0; step < 45; step++) {
			window = moveCursor(window, -20, 20, read, {});
		}

		expect(window.cursor).toBe(0);
		expect(window.rows[0]?.event.id).toBe(fixtureEvent(count - 1).id);
	});

	it('knows where the cursor is in the whole list, past the rows it let go and back', () => {
		let window = openWindow(read, {}, 40);
		for (let step = 0; step < 60; step++) {
			window = moveCursor(window, 20, 20, read, {});
			// The n-th newest event (1 the newest) is fixtureEvent(count - n).
			expect(window.rows[window.cursor]?.event.id).toBe(fixtureEvent(count - cursorPosition(window)).id);
		}

		expect(window.skipped).toBeGreaterThan(0);
		expect(cursorPosition(window)).toBe(1201);
		expect(footerHint('list', window)).toMatch(/^row 1201 · /);
		for (let step = 0; step < 60; step++) {
			window = moveCursor(window, -20, 20, read, {});
			expect(window.rows[window.cursor]?.event.id).toBe(fixtureEvent(count - cursorPosition(window)).id);
		}

		expect(cursorPosition(window)).toBe(1);
		expect(window.skipped).toBe(0);
	});

	it('reaches the oldest event and stops there', () => {
		let window = openWindow(read, {}, 40);
		for (let step = 0; step < 200 && !window.olderEnd; step++) {
			window = moveCursor(window, 50, 20, read, {});
		}

		window = moveCursor(window, 5000, 20, read, {});
		expect(window.rows[window.cursor]?.event.id).toBe(fixtureEvent(0).id);
	});

	it('a search reads in scan steps and finds events far down', () => {
		const match = queryMatcher({search: 'question number 3', filter: {}});
		let window = openWindow(read, match ? {match} : {}, 40);
		for (let step = 0; step < 10 && !window.olderEnd; step++) {
			window = moveCursor(window, 40, 20, read, match ? {match} : {});
		}

		expect(window.rows.map(row => row.event.id)).toContain(fixtureEvent(3).id);
		expect(window.rows.every(row => row.event.body.includes('question number 3'))).toBe(true);
	});

	it('following adds newer events on top and keeps the cursor on its row when it is not at the top', async () => {
		const fresh = tempDataDir();
		await fillJournal(fresh, 10, {newestMs: Date.now() - 60_000});
		const backend = await openJournal({directory: fresh, mode: 'read', verify: false});
		if (!(backend instanceof JournalBackend)) {
			throw new TypeError('expected the journal');
		}

		try {
			const freshRead: Reader = query => backend.readPage(query);
			let window = moveCursor(openWindow(freshRead, {}, 40), 2, 20, freshRead, {});
			const selected = window.rows[window.cursor]?.event.id;
			await fillJournal(fresh, 3, {newestMs: Date.now(), event: index => fixtureEvent(500 + index)});
			window = loadNewer(window, freshRead, {}, 200, true);
			expect(window.rows.slice(0, 3).map(row => row.event.id)).toEqual([fixtureEvent(502).id, fixtureEvent(501).id, fixtureEvent(500).id]);
			expect(window.rows[window.cursor]?.event.id).toBe(selected);
		} finally {
			await backend.close();
		}
	});
});

describe('help and detail lines', () => {
	it('lists every key, whole, at 80×24 and packed at 60×15', () => {
		for (const [width, room] of [[80, 19], [60, 10]] as const) {
			const lines = helpLines(width, room);
			expect(lines.length).toBeLessThanOrEqual(room);
			expect(lines.every(line => line.length <= width)).toBe(true);
			for (const key of inspectorKeys) {
				expect(lines.join('\n')).toContain(key.keys);
			}
		}
	});

	it('colours the body\'s JSON unless told not to', () => {
		expect(colourJsonLine('  "text": "hi", "n": 3, "ok": true')).toBe('  \u001B[36m"text"\u001B[39m: \u001B[32m"hi"\u001B[39m, \u001B[36m"n"\u001B[39m: \u001B[33m3\u001B[39m, \u001B[36m"ok"\u001B[39m: \u001B[35mtrue\u001B[39m');
		const event = {...fixtureEvent(1), receivedAt: new Date().toISOString(), updatedAt: '', headers: {'x-platform-signature': 'feedfacecafebeef0123456789abcdef'}, steps: [{name: 'failing', at: new Date().toISOString(), error: 'the platform answered 503'}], attempts: 1} as StoredEvent;
		const plain = detailLines(event, false);
		expect(plain.join('\n')).not.toContain('\u001B[');
		expect(plain.join('\n')).toContain('x-platform-signature  …cdef');
		expect(plain.join('\n')).toContain('error: the platform answered 503');
		expect(detailLines(event, true).join('\n')).toContain('\u001B[36m"payload"\u001B[39m');
	});
});

describe('docs/events.md', () => {
	it('documents every key of the inspector', () => {
		const docs = readFileSync(new URL('../../../docs/events.md', import.meta.url), 'utf8');
		for (const key of inspectorKeys) {
			expect(docs).toContain(`| \`${key.keys}\` |`);
		}
	});
});
