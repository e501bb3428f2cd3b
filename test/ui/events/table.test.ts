import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {formatEventTable} from '../../../source/ui/events/format.js';

const id = 'evt_c940e873a1b2c3d4e5f60718';

function stored(overrides: Partial<StoredEvent> = {}): StoredEvent {
	return {
		id,
		event: 'platform.chat.external-module.chosen',
		receivedAt: '2025-03-01T14:05:09.000Z',
		updatedAt: '2025-03-01T14:05:09.000Z',
		body: '{}',
		headers: {},
		chatId: 'chat_0123456789abcdef',
		status: 'answered',
		durationMs: 1234,
		steps: [],
		attempts: 1,
		...overrides,
	};
}

describe('the events table keeps ids whole', () => {
	it('at 200 columns shows every column uncut', () => {
		const [heading, row] = formatEventTable([stored()], 200);
		expect(heading).toMatch(/^TIME\s+ID\s+TYPE\s+STATUS\s+CHAT\s+DURATION$/);
		expect(row).toContain(id);
		expect(row).toContain('external-module.chosen');
		expect(row).toContain('chat_0123456789abcdef');
		expect(row).not.toContain('…');
	});

	for (const width of [100, 80, 60, 40]) {
		it(`at ${width} columns the id is whole and no line is wider than the terminal`, () => {
			const lines = formatEventTable([stored(), stored({id: 'evt_9y4aaaaaaaaaaaaaaaaaaaaaaa', chatId: 'c'})], width);
			expect(lines[1]).toContain(id);
			expect(lines[2]).toContain('evt_9y4aaaaaaaaaaaaaaaaaaaaaaa');
			for (const line of lines) {
				expect(stringWidth(line)).toBeLessThanOrEqual(width);
			}
		});
	}

	it('shortens the time to the time of day before it cuts, then drops columns', () => {
		const at80 = formatEventTable([stored()], 80);
		expect(at80[1]).toMatch(/^\d\d:\d\d:\d\d\s/);
		expect(at80[1]).not.toMatch(/^\d{4}-/);
		const at40 = formatEventTable([stored()], 40);
		expect(at40[0]).not.toContain('DURATION');
		expect(at40[0]).toContain('ID');
	});

	it('piped, the rows are tab-separated and whole', () => {
		expect(formatEventTable([stored()], undefined)[0]?.split('\t')[1]).toBe(id);
	});
});
