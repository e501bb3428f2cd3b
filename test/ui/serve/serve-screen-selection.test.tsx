import {describe, expect, it} from 'vitest';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';
import {accepted, arrowUp, at, flat, screenMounter} from './serve-screen-support.js';

describe('ServeScreen (the event log)', () => {
	const mount = screenMounter();

	/** Gives the fake terminal a size and tells the screen, as a terminal resize does. */
	function resize(stdout: unknown, columns: number, rows: number): void {
		Object.defineProperty(stdout, 'columns', {value: columns, configurable: true});
		Object.defineProperty(stdout, 'rows', {value: rows, configurable: true});
		(stdout as {emit(name: string): void}).emit('resize');
	}

	it('keeps the live area shorter than the terminal, one line per row, and follows resizes', async () => {
		const {source, instance} = mount();
		resize(instance.stdout, 80, 15);
		for (let index = 0; index < 30; index++) {
			source.emit(accepted({eventId: `evt_live_${index}`, chatId: `chat_${index}`, text: 'A question long enough to be cut on a terminal of eighty columns, surely'}));
		}

		await waitFor(() => flat(instance.lastFrame()).includes('more running'));
		// The banner and its blank line are <Static> output (scrollback); the rest is the live area.
		const liveArea = () => (instance.lastFrame() ?? '').split('\n').slice(2);
		const lines = liveArea();
		expect(lines.length).toBeLessThan(15);
		for (const line of lines) {
			expect(Array.from(line).length).toBeLessThanOrEqual(80);
		}

		resize(instance.stdout, 120, 40);
		await waitFor(() => liveArea().length > 20);
		expect(liveArea().length).toBeLessThan(40);
		// The status line fits 120 columns without wrapping.
		expect((instance.lastFrame() ?? '').split('\n').filter(line => line.includes('endpoint secrets'))).toHaveLength(1);
	});

	it('selects a row with the arrows, opens its details with Enter (steps, masked signature), replays a failed one with r', async () => {
		const stored: StoredEvent = {
			id: 'evt_sel',
			event: 'platform.chat.external-module.chosen',
			receivedAt: at,
			updatedAt: at,
			body: '{"id":"evt_sel","payload":{"chatid":"chat_s"}}',
			headers: {'x-platform-signature': 'f'.repeat(60) + 'abcd', 'x-platform-created-at': '1735725600'},
			status: 'failed',
			error: 'model down',
			steps: [{name: 'log-created', at, data: {order: 1, id: 'log_1'}}, {name: 'failing', at, error: 'model down'}],
			attempts: 1,
		};
		const replays: string[] = [];
		const {source, instance} = mount({extras: {
			event: async id => Promise.resolve(id === 'evt_sel' ? stored : undefined),
			replay: async id => {
				replays.push(id);
				return Promise.resolve({outcome: 'done', result: {status: 'answered'}});
			},
			backendStats: async () => Promise.resolve({count: 1, queue: {waiting: 4, active: 2, completed: 30, failed: 1}}),
		}});
		source.emit(accepted({eventId: 'evt_sel', chatId: 'chat_s', text: 'Hi'}));
		source.emit({type: 'stage', at, eventId: 'evt_sel', chatId: 'chat_s', stage: 'failed', durationMs: 5, reason: 'model down', cleanup: {logsFailed: 1, apologyWritten: true, errors: []}});
		await waitFor(() => flat(instance.lastFrame()).includes('cluster queue: waiting 4 · active 2 · completed 30 · failed 1'));
		expect(flat(instance.lastFrame())).toContain('↑/↓ select · Enter details · r replay failed');
		resize(instance.stdout, 100, 50);
		await effectsFlushed();
		instance.stdin.write(arrowUp);
		await waitFor(() => flat(instance.lastFrame()).includes('› '));
		instance.stdin.write('\r');
		await waitFor(() => flat(instance.lastFrame()).includes('failing'));
		const details = flat(instance.lastFrame());
		expect(details).toContain('status failed attempts 1');
		expect(details).toContain('x-platform-signature: …abcd');
		expect(details).not.toContain('ffff');
		expect(details).toContain('log-created');
		expect(details).toContain('"chatid": "chat_s"');
		instance.stdin.write('r');
		await waitFor(() => replays.length === 1);
		expect(replays).toEqual(['evt_sel']);
	});

	const smallEvent: StoredEvent = {
		id: 'evt_small',
		event: 'platform.chat.external-module.chosen',
		receivedAt: at,
		updatedAt: at,
		body: JSON.stringify({id: 'evt_small', payload: {chatid: 'chat_small', userMessage: {text: 'Where is the harbour?'}, assistantMessage: {id: 'msg_1'}}}),
		headers: {'x-platform-signature': 'f'.repeat(60) + 'abcd', 'x-platform-created-at': '1735725600'},
		status: 'failed',
		error: 'model down',
		steps: [{name: 'log-created', at, data: {order: 1, id: 'log_1'}}, {name: 'failing', at, error: 'model down'}],
		attempts: 1,
	};

	/** The screen at 60×15 with one failed event, selected with ↑. */
	async function selectedAtSmallSize() {
		const mounted = mount({health: {text: 'ready', ok: true}, extras: {event: async id => Promise.resolve(id === 'evt_small' ? smallEvent : undefined)}});
		const {source, instance} = mounted;
		resize(instance.stdout, 60, 15);
		source.emit(accepted({eventId: 'evt_small', chatId: 'chat_small', text: 'Where is the harbour?'}));
		source.emit({type: 'stage', at, eventId: 'evt_small', chatId: 'chat_small', stage: 'failed', durationMs: 5, reason: 'model down', cleanup: {logsFailed: 1, apologyWritten: true, errors: []}});
		await waitFor(() => flat(instance.lastFrame()).includes('model down'));
		await effectsFlushed();
		instance.stdin.write(arrowUp);
		await waitFor(() => (instance.lastFrame() ?? '').includes('› '));
		return mounted;
	}

	it('shows the selected row in the log once: the bar under the log names the event, it is not a copy of the row', async () => {
		const {instance} = await selectedAtSmallSize();
		const lines = (instance.lastFrame() ?? '').split('\n');
		expect(lines.filter(line => line.includes('model down'))).toHaveLength(1);
		expect(lines.find(line => line.startsWith('› '))).toBe('› evt_small · 10:00:00 · external-module.chosen · failed');
	});

	it('at 60×15, Enter opens details that show the event (the box gives way), in a live area shorter than the window', async () => {
		const {instance} = await selectedAtSmallSize();
		instance.stdin.write('\r');
		await waitFor(() => flat(instance.lastFrame()).includes('more lines'));
		const frame = instance.lastFrame() ?? '';
		// Everything from the selection bar down is the live area.
		const live = frame.split('\n').slice(frame.split('\n').findIndex(line => line.startsWith('› ')));
		expect(live.length).toBeLessThan(15);
		const inside = flat(live.filter(line => line.startsWith('│') && !line.includes('more lines')).join(' '));
		// The details show the event (its state and reason), not only how many lines are left out.
		expect(inside).toContain('evt_small: failed: model down');
		expect(inside).toContain('external-module.chosen status failed');
		// The box keeps its first line and its keys.
		expect(flat(frame)).toContain('q or Ctrl+C to stop');
		for (const line of live) {
			expect(Array.from(line).length).toBeLessThanOrEqual(60);
		}
	});
});
