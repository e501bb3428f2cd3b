/**
 * The pure modules of the serve screen: the status box packed at 60 and 80 columns (no item cut),
 * a live row that keeps its step, the details' last line, rows for resumed and replayed jobs; and
 * upload's one count of uploaded files.
 */
import {describe, expect, it} from 'vitest';
import {moreLinesHint} from '../../../source/ui/serve/details.js';
import {liveLayout} from '../../../source/ui/serve/layout.js';
import {replayRefusal} from '../../../source/ui/serve/LiveRow.js';
import {cutKeepingIds} from '../../../source/format/ids.js';
import {rowParts} from '../../../source/ui/serve/rows.js';
import {applyEvent, initialServeState, isNotice, type LogRow, type ServeState} from '../../../source/ui/serve/state.js';
import {statusPanelContent, statusInnerWidth} from '../../../source/ui/serve/StatusPanel.js';
import {lineText, statusSections, type StatusInput} from '../../../source/ui/serve/status-lines.js';
import {countFiles, hiddenSummary} from '../../../source/ui/upload/file-rows.js';
import {fitFileRow} from '../../../source/ui/upload/rows.js';
import type {FileRow} from '../../../source/ui/upload/view-state.js';

const at = '2025-01-01T10:00:00.000Z';

const input: StatusInput = {
	url: 'http://127.0.0.1:8080',
	secretCount: 2,
	store: 'journal /home/someone/.local/share/platform-tui/a/rather/long/path/to/the/journal',
	keyStatus: {keyMasked: '…abcd', previousKeyMasked: '…wxyz', previousKeyExpiresAt: new Date(Date.parse(at) + 7_500_000).toISOString()},
	now: Date.parse(at),
	counters: {received: 12_345, verified: 12_000, rejected: 345, duplicates: 17, processing: 3, answered: 11_900, failed: 80},
	queue: {waiting: 4, active: 2, completed: 30, failed: 1},
	drainTimeoutMs: 25_000,
	selectable: true,
};

describe('the serve status box', () => {
	it.each([60, 80])('shows every figure and key hint whole at %i columns, each line within the box', width => {
		const lines = statusPanelContent(input, width);
		const inner = statusInnerWidth(width);
		for (const line of lines) {
			expect(Array.from(lineText(line)).length).toBeLessThanOrEqual(inner);
		}

		const text = lines.map(line => lineText(line)).join(' · ');
		for (const section of statusSections(input).filter(section => !section.path && !section.wrap)) {
			for (const item of section.items) {
				expect(text).toContain(item.text);
			}
		}

		// The path is cut in its middle when it does not fit, never dropped.
		const store = lines.find(line => line.key === 'store');
		expect(store && lineText(store)).toMatch(/^events in journal \/home.*…/);
	});

	it('names the profile beside the address when it is not default, and nothing otherwise', () => {
		const address = (value: StatusInput) => statusSections(value).find(section => section.key === 'address')?.items.map(item => item.text) ?? [];
		expect(address({...input, profile: 'staging'})).toContain('profile staging');
		expect(address(input).some(text => text.startsWith('profile'))).toBe(false);
	});

	it.each([40, 80])('shows a start-up warning whole at %i columns, wrapped at spaces, in yellow', width => {
		const warning = 'Redis at redis://127.0.0.1:6379 has persistence off (appendonly no, save ""): acknowledged events still in it are lost if Redis restarts or is wiped.';
		const lines = statusPanelContent({...input, warnings: [warning]}, width).filter(line => line.key === 'warnings');
		expect(lines.length).toBeGreaterThan(1);
		expect(lines.every(line => line.tone === 'yellow' && Array.from(lineText(line)).length <= statusInnerWidth(width))).toBe(true);
		expect(lines.map(line => lineText(line)).join(' ')).toBe(`warning: ${warning}`);
	});

	it.each([60, 80, 200])('wraps a degraded status and its next step onto whole lines at %i columns', width => {
		const reason = 'degraded since 03:30:52: platform: the API key was rejected (GET /messages?chatId=chat_0123456789abcdef&limit=50 answered 401)';
		const next = 'set a valid key with `platform-tui keys set` (or PLATFORM_API_KEY), or rotate it with `platform-tui keys rotate`';
		const lines = statusPanelContent({...input, health: {text: reason, ok: false, next}}, width).filter(line => line.key === 'health');
		expect(lines.every(line => line.tone === 'red' && Array.from(lineText(line)).length <= statusInnerWidth(width))).toBe(true);
		expect(lines.map(line => lineText(line)).join(' ')).toBe(`${reason} next: ${next}`);
		expect(lines.map(line => lineText(line)).at(-1)).toMatch(/rotate`$/);
		expect(lines.some(line => lineText(line).startsWith('next: '))).toBe(true);
	});

	it('says plainly that serve still runs on the rotated-out key, and until when it is valid', () => {
		const rotated: StatusInput = {...input, keyStatus: {keyMasked: '…1gyP', source: 'env', previousKeyMasked: '…1gyP', storedKeyMasked: '…QG8W', previousKeyExpiresAt: new Date(Date.parse(at) + 86_340_000).toISOString()}};
		const text = statusPanelContent(rotated, 80).filter(line => line.key === 'rotation').map(line => lineText(line)).join(' ');
		expect(text).toMatch(/^The key was rotated to …QG8W \(stored\): serve still signs and calls the platform with the previous key …1gyP until it is restarted with PLATFORM_API_KEY set to …QG8W \(or unset\); …1gyP is valid until \d{4}-\d\d-\d\d \d\d:\d\d \(in 23 h 59 min\)\.$/);
		// A "previous" key that is the key in use, with no other key stored, is no previous key.
		const same: StatusInput = {...input, keyStatus: {keyMasked: '…QG8W', previousKeyMasked: '…QG8W', previousKeyExpiresAt: new Date(Date.parse(at) + 86_340_000).toISOString()}};
		expect(statusPanelContent(same, 80).map(line => lineText(line)).join(' ')).not.toContain('previous key');
		for (const width of [60, 200]) {
			const moved = statusPanelContent(input, width).filter(line => line.key === 'rotation').map(line => lineText(line)).join(' ');
			expect(moved).toMatch(/^previous key …wxyz valid until \d{4}-\d\d-\d\d \d\d:\d\d \(in 2 h 05 min\)$/);
		}
	});

	it('never takes more lines than the window gives it, saying how many it left out', () => {
		const all = statusPanelContent(input, 60);
		const capped = statusPanelContent(input, 60, 3);
		expect(capped).toHaveLength(3);
		// The first line, how many are left out, and the keys' last line (the stop notice when stopping).
		expect(capped.map(line => lineText(line))).toEqual([lineText(all[0] ?? {key: '', items: []}), `… ${all.length - 2} more lines (the window is too short)`, lineText(all.at(-1) ?? {key: '', items: []})]);
	});

	it('names the keys and the stop while running, the drain with a spinner, then the end', () => {
		const footer = (value: StatusInput) => statusPanelContent(value, 80).filter(line => line.key === 'footer');
		expect(footer(input).map(line => lineText(line)).join(' · ')).toBe('↑/↓ select · Enter details · r replay failed · ? help · q or Ctrl+C to stop · running jobs get 25 s to finish');
		const draining = footer({...input, draining: {timeoutMs: 25_000}});
		expect(draining[0]?.spinner).toBe(true);
		expect(draining.map(line => lineText(line)).join(' · ')).toContain('waiting up to 25 s for 3 jobs…');
		expect(footer({...input, stopped: {cutOff: 1, leftWaiting: 0}}).map(line => lineText(line)).join(' · ')).toContain('1 job cut off at the drain deadline');
	});
});

const liveRow = (fields: Partial<LogRow> = {}): LogRow => ({
	key: 'k',
	eventId: 'evt_0123456789abcdef01234567',
	time: '10:00:00',
	status: 200,
	label: 'external-module.chosen',
	chatId: 'chat_0123456789abcdef01234567',
	text: 'What does the harbour lighthouse keeper write in the log book?',
	detail: 'generating (3 documents found)',
	tone: 'live',
	stage: 'generating',
	...fields,
});

describe('a row', () => {
	it.each([60, 80])('keeps a running job\'s step whole at %i columns; the text, the chat and the type give way', width => {
		const parts = rowParts(liveRow(), width, {reserved: 2, minimumDetail: 32});
		expect(parts.detail).toBe('generating (3 documents found)');
		const length = parts.time.length + 2 + parts.status.length + Array.from(parts.middle).length + Array.from(parts.detail).length;
		expect(length).toBeLessThanOrEqual(width - 2);
	});

	it('shows --- for a job no request started here', () => {
		expect(rowParts(liveRow({status: undefined, label: 'resumed'}), 80).status).toBe('---');
	});

	it.each([40, 50, 60, 70, 80, 100])('names an event id in its detail whole, or not at all, at %i columns', width => {
		const id = 'evt_356378252a1bcb166108f80f';
		const {detail} = rowParts(liveRow({detail: `duplicate of ${id}, not processed again`, chatId: 'chat_fd47d738dac073b06a56b8b2'}), width);
		for (const found of detail.match(/evt_[\w…]*/g) ?? []) {
			expect(found).toBe(id);
		}

		expect(detail.startsWith('duplicate of')).toBe(true);
	});
});

describe('cutKeepingIds', () => {
	it('cuts before an id rather than inside it', () => {
		expect(cutKeepingIds('duplicate of evt_356378252a1bcb166108f80f, not processed again', 24)).toBe('duplicate of…');
		expect(cutKeepingIds('duplicate of evt_356378252a1bcb166108f80f, not processed again', 45)).toBe('duplicate of evt_356378252a1bcb166108f80f, n…');
		expect(cutKeepingIds('a long sentence without any id in it', 12)).toBe('a long sent…');
		expect(cutKeepingIds('short', 12)).toBe('short');
	});
});

describe('the details\' last line', () => {
	it('names the whole id, or no id, never a cut one', () => {
		const id = 'evt_0123456789abcdef01234567';
		for (let width = 10; width <= 80; width++) {
			const hint = moreLinesHint(12, id, width);
			expect(Array.from(hint).length).toBeLessThanOrEqual(width);
			const ids = hint.match(/evt_\w*/g) ?? [];
			expect(ids.every(found => found === id)).toBe(true);
		}

		expect(moreLinesHint(12, id, 80)).toBe(`… 12 more lines (platform-tui events show ${id})`);
		expect(moreLinesHint(12, id, 60)).toBe(`… 12 more lines: events show ${id}`);
		expect(moreLinesHint(12, id, 20)).toBe('… 12 more lines');
	});
});

/** The finished event rows (no notices). */
const eventRows = (state: ServeState): LogRow[] => state.done.filter((row): row is LogRow => !isNotice(row));

describe('serve rows for jobs no request of the screen started', () => {
	it('gives a resumed job a row that follows its stages and ends in the log', () => {
		const state = initialServeState();
		applyEvent(state, {type: 'stage', at, eventId: 'evt_r', chatId: 'chat_r', stage: 'queued'});
		expect(state.live.get('evt_r')).toMatchObject({label: 'resumed', stage: 'queued', chatId: 'chat_r'});
		applyEvent(state, {type: 'stage', at, eventId: 'evt_r', chatId: 'chat_r', stage: 'answered', durationMs: 12});
		expect(state.live.size).toBe(0);
		expect(eventRows(state).map(row => [row.label, row.detail])).toEqual([['resumed', 'answered in 12 ms']]);
	});

	it('ends a waiting job\'s row with its next attempt (the live area stays short); the next attempt gets a row of its own', () => {
		const state = initialServeState();
		applyEvent(state, {type: 'stage', at: '2026-01-01T10:00:00.000Z', eventId: 'evt_w', chatId: 'chat_1', stage: 'searching'});
		applyEvent(state, {type: 'stage', at: '2026-01-01T10:00:01.000Z', eventId: 'evt_w', chatId: 'chat_1', stage: 'waiting', nextAttemptAt: '2026-01-01T10:00:06.000Z', waitingFor: 'answer', tries: 1, reason: 'POST /search failed with HTTP 503'});
		expect(state.live.size).toBe(0);
		expect(state.done.at(-1)).toMatchObject({eventId: 'evt_w', tone: 'warn'});
		expect(eventRows(state).at(-1)?.detail).toMatch(/^waiting: next attempt at \S+ \(wait 1, the answer\): POST \/search failed with HTTP 503$/);
		applyEvent(state, {type: 'stage', at: '2026-01-01T10:00:06.000Z', eventId: 'evt_w', chatId: 'chat_1', stage: 'queued'});
		expect(state.live.get('evt_w')).toMatchObject({label: 'resumed'});
	});

	it('labels a replay started with r, and says why r replays nothing', () => {
		const state = initialServeState();
		state.replaying.add('evt_f');
		applyEvent(state, {type: 'stage', at, eventId: 'evt_f', chatId: 'chat_f', stage: 'searching'});
		expect(state.live.get('evt_f')?.label).toBe('replay');
		expect(state.replaying.size).toBe(0);
		expect(replayRefusal(undefined, true)).toMatch(/select a failed event/);
		expect(replayRefusal(liveRow({stage: 'answered', detail: 'answered in 5 ms'}), true)).toBe('not replayed: evt_0123456789abcdef01234567 did not fail (answered in 5 ms); r replays failed events');
		expect(replayRefusal(liveRow({eventId: undefined}), true)).toMatch(/named no event/);
		expect(replayRefusal(liveRow({stage: 'failed'}), true)).toBeUndefined();
	});
});

describe('the serve live area at 60×15', () => {
	it('has no spacer row; at 24 rows it has one', () => {
		expect(liveLayout({rows: 15, statusLines: 8, selected: false, detailsWanted: 0, live: 2}).spacer).toBe(false);
		expect(liveLayout({rows: 24, statusLines: 8, selected: false, detailsWanted: 0, live: 2}).spacer).toBe(true);
	});
});

describe('upload counts', () => {
	const file = (name: string, phase: FileRow['phase'], uploaded: boolean): FileRow => ({name, size: 10, mimeType: 'text/plain', phase, sentBytes: uploaded ? 10 : 0, uploaded});
	it('counts a file being finalized as uploaded, not also as transferring', () => {
		const files = [file('a', 'finalizing', true), file('b', 'uploading', false), file('c', 'ingesting', true), file('d', 'waiting', false), file('e', 'failed', false)];
		const counts = countFiles(files);
		expect(counts.uploaded).toBe(2);
		expect(counts.transferring).toBe(1);
		expect(hiddenSummary(files)).toBe('1 transferring, 1 failed, 1 waiting, 2 uploaded');
	});
});

describe('an upload row that ends with a content id', () => {
	const id = 'cont_8d10e21c7b39efa88207de5d';
	it('keeps the id whole: the name shrinks first (not below 8), then the size goes, then the id', () => {
		// The icon and FINISHED with their gaps: 12 columns; the size 11; the id 2 + 29.
		expect(fitFileRow(100, 32, 12, id)).toEqual({nameWidth: 32, size: true, id});
		expect(fitFileRow(80, 32, 12, id)).toEqual({nameWidth: 80 - 12 - 11 - 31, size: true, id});
		expect(fitFileRow(60, 10, 12, id)).toEqual({nameWidth: 10, size: false, id});
		expect(fitFileRow(45, 10, 12, id)).toEqual({nameWidth: 10, size: false, id: undefined});
		expect(fitFileRow(45, 10, 12, undefined)).toEqual({nameWidth: 10, size: true, id: undefined});
	});
});
