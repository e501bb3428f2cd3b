/**
 * serve's pulse: the requests per second over the last minute in the status box, a sparkline on a
 * coloured terminal and figures without colour, one line as wide as the box at 40 and 120 columns.
 */
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {displayWidth} from '../../../source/format/width.js';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from '../../../source/receiver/events.js';
import {rateSection} from '../../../source/ui/serve/rate-section.js';
import {ServeScreen} from '../../../source/ui/serve/ServeScreen.js';
import {statusPanelContent, statusInnerWidth} from '../../../source/ui/serve/StatusPanel.js';
import {lineText, statusLines, type StatusInput} from '../../../source/ui/serve/status-lines.js';
import {isRequest} from '../../../source/ui/serve/use-event-rate.js';
import {stripAnsi, terminalOf} from '../ink-terminal.js';
import {cleanupsAfterEach} from '../../support/cleanups.js';
import {waitFor} from '../../support/wait.js';

const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
const at = '2025-01-01T10:00:00.000Z';
const input = (rate: StatusInput['rate']): StatusInput => ({url: 'http://127.0.0.1:8080', secretCount: 1, keyStatus: {keyMasked: '…abcd'}, now: Date.parse(at), counters, drainTimeoutMs: 25_000, selectable: true, ...(rate ? {rate} : {})});
const values = Array.from({length: 60}, (_, index) => index % 7);

describe('the pulse in the status box', () => {
	it('fills the line with a sparkline at 40 and 120 columns, never past it', () => {
		for (const width of [40, 120]) {
			const [line] = statusLines([rateSection({values, pictures: true})], statusInnerWidth(width));
			const text = lineText(line ?? {key: '', items: []});
			expect(text).toMatch(/^events [▁▂▃▄▅▆▇█]+ 3\/s \(peak 6\/s\)$/);
			expect(displayWidth(text)).toBeLessThanOrEqual(statusInnerWidth(width));
		}

		const [wide] = statusLines([rateSection({values, pictures: true})], 120);
		// A minute of buckets at the most, however wide the box.
		expect(/[▁▂▃▄▅▆▇█]+/.exec(lineText(wide ?? {key: '', items: []}))?.[0]).toHaveLength(60);
	});

	it('says the figures alone without pictures', () => {
		const [line] = statusLines([rateSection({values: [0, 3, 12, 7], pictures: false})], 36);
		expect(lineText(line ?? {key: '', items: []})).toBe('events 7/s (peak 12/s)');
	});

	it('takes one line of the box, after the counters', () => {
		const lines = statusPanelContent(input({values: [1, 2], pictures: true}), 40).map(line => line.key);
		expect(lines.indexOf('rate')).toBe(lines.lastIndexOf('counters') + 1);
		expect(lines.filter(key => key === 'rate')).toHaveLength(1);
		expect(statusPanelContent(input(undefined), 40).some(line => line.key === 'rate')).toBe(false);
	});

	it('counts requests answered, not the stages of jobs', () => {
		expect(isRequest({type: 'accepted', at, request: 1, remoteAddress: '127.0.0.1', status: 200, eventType: 'x', handling: 'queued', secretIndex: 0})).toBe(true);
		expect(isRequest({type: 'stage', at, eventId: 'evt_1', chatId: 'chat_1', stage: 'searching'})).toBe(false);
	});
});

describe('the pulse on the serve screen', () => {
	const cleanups = cleanupsAfterEach();

	function mount(columns: number, color: boolean) {
		cleanups.push(terminalOf(columns));
		const listeners = new Set<ReceiverEventListener>();
		let time = Date.parse(at);
		const instance = render(
			<ServeScreen
				source={{counters: () => counters, on: (_type, listener) => {
					listeners.add(listener);
					return () => listeners.delete(listener);
				}}}
				url="http://127.0.0.1:8080"
				secretCount={1}
				drainTimeoutMs={25_000}
				keyStatus={() => ({keyMasked: '…abcd'})}
				flushIntervalMs={10}
				now={() => time}
				color={color}
				onQuit={() => undefined}
			/>,
		);
		cleanups.push(() => {
			instance.unmount();
		});
		const emit = (event: ReceiverEvent, atMs: number) => {
			time = atMs;
			for (const listener of listeners) {
				listener(event);
			}
		};

		return {instance, emit, start: Date.parse(at)};
	}

	const rejected: ReceiverEvent = {type: 'rejected', at, request: 1, method: 'POST', path: '/webhook', remoteAddress: '10.0.0.7', status: 400, reason: 'signature-mismatch', error: 'Invalid signature'};

	for (const columns of [40, 120]) {
		it(`draws the requests of each second at ${columns} columns, within the width`, async () => {
			const {instance, emit, start} = mount(columns, true);
			await waitFor(() => listenersReady(instance.lastFrame()));
			for (let index = 0; index < 3; index++) {
				emit(rejected, start + 100);
			}

			emit(rejected, start + 1100);
			// The second under way is not drawn until it is whole: the next event's render shows the first.
			emit({type: 'stage', at, eventId: 'evt_1', chatId: 'chat_1', stage: 'searching'}, start + 2100);
			const frame = await waitFor(() => stripAnsi(instance.lastFrame() ?? ''), {until: text => text.includes('(peak 3/s)')});
			const line = frame.split('\n').find(text => text.includes('events '));
			expect(line).toMatch(/events █▄ 1\/s \(peak 3\/s\)/);
			for (const text of frame.split('\n')) {
				expect(displayWidth(text)).toBeLessThanOrEqual(columns);
			}
		});
	}

	it('says figures without colour', async () => {
		const {instance, emit, start} = mount(40, false);
		await waitFor(() => listenersReady(instance.lastFrame()));
		emit(rejected, start + 100);
		emit(rejected, start + 1100);
		const frame = await waitFor(() => stripAnsi(instance.lastFrame() ?? ''), {until: text => text.includes('events 1/s (peak 1/s)')});
		expect(frame).not.toMatch(/[▁▂▃▄▅▆▇█]/);
	});
});

/** The box is drawn: the screen has subscribed to the source. */
function listenersReady(frame: string | undefined): boolean {
	return (frame ?? '').includes('received 0');
}
