/**
 * One display-width rule for every layout: names and text in other scripts (wide CJK, a combining
 * accent, emoji) and runs of spaces, laid out by the events table, serve's rows, its details and
 * status box, the help; ids never cut, chat ids included, and never split across lines.
 */
import fc from 'fast-check';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {cutKeepingIds, fitColumns, wrapKeepingIds} from '../../source/format/ids.js';
import {formatTable} from '../../source/format/table.js';
import {cutToWidth, displayWidth, oneLine, padEndToWidth, sliceEndToWidth, splitToWidth} from '../../source/format/width.js';
import type {StoredEvent} from '../../source/receiver/store/backend.js';
import {formatEventTable} from '../../source/ui/events/format.js';
import {helpLines} from '../../source/ui/events/inspector-format.js';
import {detailLines} from '../../source/ui/serve/details.js';
import {rowLine} from '../../source/ui/serve/rows.js';
import type {LogRow} from '../../source/ui/serve/state.js';
import {statusPanelContent, statusInnerWidth} from '../../source/ui/serve/StatusPanel.js';
import {lineText, type StatusInput} from '../../source/ui/serve/status-lines.js';

/** The names of the finding: wide CJK, `é` written as `e` and a combining accent, two spaces, emoji. */
const cjk = '保修说明.md';
const combining = 'cafe\u0301.txt';
const spaces = 'file with  spaces.txt';
const emoji = '👩‍👩‍👧 family 🎉.txt';
const names = [cjk, combining, spaces, emoji];
/** As the platform writes them: a prefix and 24 letters and digits. */
const chatId = 'chat_712917707c406c0b2d9e8f1a';

describe('cutting and padding in display columns', () => {
	it('pads a wide or combined name to its column, as the terminal shows it', () => {
		expect(stringWidth(padEndToWidth(cjk, 16))).toBe(16);
		expect(padEndToWidth(cjk, 16)).toBe(`${cjk}     `);
		expect(padEndToWidth(combining, 10)).toBe(`${combining}  `);
	});

	it('cuts between whole characters, never past the width, the accent with its letter', () => {
		for (const name of names) {
			for (let width = 1; width <= 24; width++) {
				const cut = cutToWidth(name, width);
				expect(stringWidth(cut)).toBeLessThanOrEqual(width);
				expect(cut.normalize('NFC').startsWith(cut.replace(/…$/, '').normalize('NFC'))).toBe(true);
			}
		}

		expect(cutToWidth(cjk, 6)).toBe('保修…');
		expect(cutToWidth(combining, 5)).toBe('cafe\u0301…');
		expect(sliceEndToWidth(cjk, 5)).toBe('明.md');
	});

	it('measures and splits long texts of any script as string-width measures them whole', () => {
		// Pieces the fast paths read alone and clusters only the segmenter reads (a long text is
		// measured a character at a time).
		const pieces = ['a', ' ', '  ', '保', '说明', 'e\u0301', '👩\u200D👩\u200D👧', '🇩🇪', '👍🏽', '가', '\u1100\u1161\u11A8', 'क्षि', 'ｳﾞ', '１', '\u0600a', 'x\uFE0F'];
		fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), {minLength: 1, maxLength: 400}), fc.integer({min: 2, max: 40}), (parts, width) => {
			const text = parts.join('');
			expect(displayWidth(text)).toBe(stringWidth(text));
			const split = splitToWidth(text, width);
			expect(split.join('')).toBe(text);
			expect(split.every(piece => stringWidth(piece) <= width)).toBe(true);
			expect(stringWidth(cutToWidth(text, width))).toBeLessThanOrEqual(width);
		}), {numRuns: 200});
	});

	it('keeps runs of spaces; a line break or a tab becomes one space', () => {
		expect(oneLine(spaces, 40)).toBe(spaces);
		expect(oneLine('two\n\nlines\there', 40)).toBe('two lines here');
		expect(oneLine(`${spaces}\n`, 40)).toBe(spaces);
	});
});

describe('ids are never cut', () => {
	it('cuts a line before an id rather than inside it, in display columns', () => {
		const text = `保修说明 duplicate of ${chatId} again`;
		for (let width = 4; width <= 70; width++) {
			const cut = cutKeepingIds(text, width);
			expect(stringWidth(cut)).toBeLessThanOrEqual(width);
			expect((cut.match(/chat_[\w…]*/g) ?? []).every(found => found === chatId)).toBe(true);
		}
	});

	it('wraps between words and never splits an id across lines, at every width', () => {
		const text = `error: POST /chat/${chatId}/messages answered 503 for evt_0123456789abcdef01234567 (保修说明.md)`;
		for (let width = 30; width <= 90; width++) {
			const lines = wrapKeepingIds(text, width);
			expect(lines.every(line => stringWidth(line) <= width)).toBe(true);
			expect(lines.join('').replaceAll(' ', '')).toBe(text.replaceAll(' ', ''));
			expect(lines.some(line => line.includes(chatId))).toBe(true);
			expect(lines.some(line => line.includes('evt_0123456789abcdef01234567'))).toBe(true);
		}
	});

	it('fits columns: ids whole, the others cut to their minimum, then left out in order', () => {
		expect(fitColumns([20, 11, 31], 100, {gap: 0, whole: [1, 2], minimum: {0: 8}, dropOrder: [1, 2]})).toEqual({columns: [0, 1, 2], widths: [20, 11, 31], shorter: false});
		expect(fitColumns([20, 11, 31], 50, {gap: 0, whole: [1, 2], minimum: {0: 8}, dropOrder: [1, 2]})).toEqual({columns: [0, 1, 2], widths: [8, 11, 31], shorter: true});
		expect(fitColumns([20, 11, 31], 45, {gap: 0, whole: [1, 2], minimum: {0: 8}, dropOrder: [1, 2]})).toEqual({columns: [0, 2], widths: [14, 31], shorter: true});
		expect(fitColumns([20, 11, 31], 30, {gap: 0, whole: [1, 2], minimum: {0: 8}, dropOrder: [1, 2]}).columns).toEqual([0]);
	});

	it('fits columns: cutLast ones are cut after the drops, in their order, each to its minimum first', () => {
		const fit = {gap: 0, whole: [0], minimum: {1: 12, 3: 12}, dropOrder: [3], cutLast: [2, 1]};
		expect(fitColumns([14, 36, 7, 24], 70, fit)).toEqual({columns: [0, 1, 2, 3], widths: [14, 36, 7, 13], shorter: true});
		expect(fitColumns([14, 36, 7, 24], 55, fit)).toEqual({columns: [0, 1, 2], widths: [14, 36, 5], shorter: true});
		expect(fitColumns([14, 36, 7, 24], 40, fit)).toEqual({columns: [0, 1, 2], widths: [14, 22, 4], shorter: true});
	});
});

function stored(overrides: Partial<StoredEvent> = {}): StoredEvent {
	return {
		id: 'evt_c940e873a1b2c3d4e5f60718',
		event: 'platform.chat.external-module.chosen',
		receivedAt: '2025-03-01T14:05:09.000Z',
		updatedAt: '2025-03-01T14:05:09.000Z',
		body: '{}',
		headers: {},
		chatId,
		status: 'answered',
		durationMs: 1234,
		steps: [],
		attempts: 1,
		...overrides,
	};
}

describe('the events table (events list and the inspector)', () => {
	it.each([60, 70, 80, 100, 120])('shows a long chat id whole or not at all at %i columns', width => {
		const lines = formatEventTable([stored(), stored({id: 'evt_9y4aaaaaaaaaaaaaaaaaaaaaaa', chatId: undefined})], width);
		for (const line of lines) {
			expect(stringWidth(line)).toBeLessThanOrEqual(width);
			expect((line.match(/chat_[\w…]*/g) ?? []).every(found => found === chatId)).toBe(true);
		}

		if (width >= 100) {
			expect(lines[1]).toContain(chatId);
		}
	});

	it('lines its columns up in display columns with wide and combined names, cut ones too', () => {
		for (const width of [30, 40, 60]) {
			const lines = formatTable(['NAME', 'ID'], names.map((name, index) => [name, `cont_000000000${index}`]), width, {whole: [1]});
			const idColumn = lines.map(line => stringWidth(line.slice(0, line.indexOf('cont_'))));
			expect(new Set(idColumn.slice(1)).size).toBe(1);
			expect(lines.every(line => stringWidth(line) <= width)).toBe(true);
		}
	});
});

const serveRow = (fields: Partial<LogRow> = {}): LogRow => ({
	key: 'k',
	eventId: 'evt_0123456789abcdef01234567',
	time: '10:00:00',
	status: 200,
	label: 'external-module.chosen',
	chatId,
	text: '保修期是多久？请看保修说明。保修期是多久？请看保修说明。',
	detail: `answered in 1.2 s · 保修说明.md · ${spaces}`,
	tone: 'ok',
	stage: 'answered',
	...fields,
});

describe('serve\'s rows, details and status box', () => {
	it.each([40, 60, 80, 100])('fits a row with Chinese text in %i columns, the chat id whole or left out', width => {
		const line = rowLine(serveRow(), false, width);
		expect(stringWidth(line)).toBeLessThanOrEqual(width);
		expect((line.match(/chat_[\w…]*/g) ?? []).every(found => found === chatId)).toBe(true);
	});

	it.each([36, 41, 56, 76])('wraps the details at %i columns without splitting an id, nor a Chinese line past the width', width => {
		const event = stored({
			body: JSON.stringify({type: 'platform.chat.external-module.chosen', payload: {chatId, text: '保修期是多久？请看保修说明。保修期是多久？请看保修说明。'}}),
			steps: [{at: '2025-03-01T14:05:09.000Z', name: 'answer', error: `POST /chat/${chatId}/messages answered 503`}],
		});
		const lines = detailLines(serveRow({full: `failed: evt_0123456789abcdef01234567 in ${chatId} answered 503`}), event, width, 1000);
		expect(lines.every(line => stringWidth(line) <= width)).toBe(true);
		const text = lines.join('\n');
		for (const id of [chatId, 'evt_0123456789abcdef01234567']) {
			// Every place the id starts on a line, it is whole on that line.
			for (const line of lines.filter(each => each.includes(id.slice(0, 8)))) {
				expect(line).toContain(id);
			}
		}

		expect(text).toContain('保修说明');
	});

	it('wraps a body only up to its budget, and says there are more lines than it counted', () => {
		const lines = detailLines(serveRow(), stored({body: '保修说明'.repeat(50_000)}), 76, 10);
		expect(lines).toHaveLength(10);
		expect(lines.slice(0, -1).every(line => stringWidth(line) <= 76)).toBe(true);
		expect(lines.at(-1)).toMatch(/^… \d+\+ more lines \(platform-tui events show evt_0123456789abcdef01234567\)$/);
	});

	it.each([40, 60])('keeps the status box within %i columns with a Chinese path', width => {
		const input: StatusInput = {
			url: 'http://127.0.0.1:8080',
			secretCount: 1,
			store: 'journal /home/用户/文档/保修说明/平台/数据/很长的路径/platform-tui',
			keyStatus: {keyMasked: '…abcd'},
			now: 0,
			counters: {received: 1, verified: 1, rejected: 0, duplicates: 0, processing: 0, answered: 1, failed: 0},
			drainTimeoutMs: 25_000,
			selectable: true,
		};
		for (const line of statusPanelContent(input, width)) {
			expect(stringWidth(lineText(line))).toBeLessThanOrEqual(statusInnerWidth(width));
		}
	});

	it('lays the help out in display columns', () => {
		for (const width of [30, 60, 100]) {
			expect(helpLines(width, 40).every(line => stringWidth(line) <= width)).toBe(true);
		}
	});
});
