import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from '../../../source/receiver/events.js';
import {plainLine} from '../../../source/ui/serve/format.js';
import {replayingSource, ServeScreen, type KeyStatus, type ServeSource} from '../../../source/ui/serve/ServeScreen.js';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';

function fakeSource() {
	const listeners = new Set<ReceiverEventListener>();
	const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	return {
		counters: () => ({...counters}),
		state: counters,
		on(_type: 'event', listener: ReceiverEventListener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		emit(event: ReceiverEvent) {
			for (const listener of listeners) {
				listener(event);
			}
		},
		get listenerCount() {
			return listeners.size;
		},
	};
}

const at = '2025-01-01T10:00:00.000Z';
const arrowUp = '\u001B[A';
const accepted = (fields: Partial<Extract<ReceiverEvent, {type: 'accepted'}>>): ReceiverEvent => ({
	type: 'accepted',
	at,
	request: 1,
	remoteAddress: '127.0.0.1',
	status: 200,
	eventType: 'platform.chat.external-module.chosen',
	handling: 'queued',
	secretIndex: 0,
	...fields,
});

/** Everything written to the fake terminal so far (Static rows are written once), wrapped lines joined. */
const screen = (frames: string[]) => flat(frames.join('\n'));
/** Joins wrapped lines and collapses white space, so assertions do not depend on the width. */
const flat = (text: string | undefined) => (text ?? '').replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');

describe('ServeScreen (the event log)', () => {
	let cleanup: (() => void) | undefined;
	afterEach(() => {
		cleanup?.();
		cleanup = undefined;
	});

	function mount(options: {key?: KeyStatus; now?: number; extras?: Partial<ServeSource>; health?: {text: string; ok: boolean; next?: string}} = {}) {
		const source = fakeSource();
		// Events emitted right after the first render (before the screen subscribed) are replayed.
		const replaying = replayingSource({...source, on: source.on.bind(source), counters: source.counters, ...options.extras});
		const quits: boolean[] = [];
		const key = options.key ?? {keyMasked: '…abcd'};
		const instance = render(
			<ServeScreen
				source={replaying}
				url="http://127.0.0.1:8080"
				secretCount={2}
				drainTimeoutMs={25_000}
				keyStatus={() => key}
				{...(options.health ? {health: () => options.health ?? {text: '', ok: true}} : {})}
				flushIntervalMs={10}
				now={() => options.now ?? Date.parse(at)}
				onQuit={force => {
					quits.push(force);
				}}
			/>,
		);
		cleanup = () => {
			instance.unmount();
			replaying.dispose();
		};

		return {source, instance, quits: () => quits};
	}

	it('shows the listen address, secrets, the masked key and the counters', async () => {
		const {source, instance} = mount();
		source.state.received = 3;
		source.state.verified = 2;
		source.state.rejected = 1;
		source.emit({type: 'rejected', at, request: 1, method: 'POST', path: '/webhook', remoteAddress: '10.0.0.7', status: 400, reason: 'signature-mismatch', error: 'Invalid signature'});
		await waitFor(() => screen(instance.frames).includes('from 10.0.0.7'));
		const text = screen(instance.frames);
		expect(text).toContain('listening on http://127.0.0.1:8080');
		expect(text).toContain('2 endpoint secrets');
		expect(text).toContain('key …abcd');
		expect(text).toContain('received 3 · verified 2 · rejected 1 · duplicates 0 · processing 0 · answered 0 · failed 0');
		expect(text).not.toContain('previous key');
	});

	it('shows a rejected request with its reason and remote address', async () => {
		const {source, instance} = mount();
		source.emit({type: 'rejected', at, request: 1, method: 'POST', path: '/webhook', remoteAddress: '10.0.0.7', status: 400, reason: 'timestamp-outside-tolerance', error: 'Invalid signature'});
		await waitFor(() => screen(instance.frames).includes('from 10.0.0.7'));
		const text = screen(instance.frames);
		expect(text).toMatch(/\d\d:\d\d:\d\d 400 POST \/webhook rejected: Created-At outside the tolerance, from 10\.0\.0\.7/);
	});

	it('follows a chosen event through its stages, then moves it to the finished rows', async () => {
		const {source, instance} = mount();
		source.emit(accepted({eventId: 'evt_1', chatId: 'chat_42', text: 'What does the harbour lighthouse keeper write in the leather log book every evening?'}));
		await waitFor(() => flat(instance.lastFrame()).includes('chat_42'));
		expect(flat(instance.lastFrame())).toContain('chat_42');
		// One line per event: the text gets what the width leaves (100 columns here).
		expect(flat(instance.lastFrame())).toMatch(/chat_42 "What does the[\w ]*…" /);
		expect(flat(instance.lastFrame())).toContain('queued');
		source.emit({type: 'stage', at, eventId: 'evt_1', chatId: 'chat_42', stage: 'searching'});
		await waitFor(() => flat(instance.lastFrame()).includes('searching'));
		expect(flat(instance.lastFrame())).toContain('searching');
		source.emit({type: 'stage', at, eventId: 'evt_1', chatId: 'chat_42', stage: 'generating', documents: 3});
		await waitFor(() => flat(instance.lastFrame()).includes('generating'));
		expect(flat(instance.lastFrame())).toContain('generating (3 documents found)');
		source.emit({type: 'stage', at, eventId: 'evt_1', chatId: 'chat_42', stage: 'answered', documents: 3, durationMs: 812});
		await waitFor(() => screen(instance.frames).includes('answered in 812 ms'));
		// The finished row was written once (Static); the live part no longer holds it.
		expect(screen(instance.frames)).toContain('answered in 812 ms');
		expect(flat(instance.lastFrame())).not.toContain('generating');
	});

	it('shows why a job failed and what the clean-up did', async () => {
		const {source, instance} = mount();
		source.emit(accepted({eventId: 'evt_2', chatId: 'chat_9', text: 'Hi'}));
		source.emit({type: 'stage', at, eventId: 'evt_2', chatId: 'chat_9', stage: 'failed', durationMs: 40, reason: 'POST /openai/chat/completions failed with HTTP 502: model down', cleanup: {logsFailed: 1, apologyWritten: true, errors: []}});
		await waitFor(() => screen(instance.frames).includes('failed:'));
		// The row holds what fits on one line; the whole reason is in the selected row's details.
		expect(screen(instance.frames)).toContain('failed: POST /openai/chat/completions');
		await effectsFlushed();
		instance.stdin.write(arrowUp);
		await waitFor(() => flat(instance.lastFrame()).includes('› '));
		instance.stdin.write('\r');
		await waitFor(() => flat(instance.lastFrame()).includes('(1 log set FAILED, apology written)'));
		expect(flat(instance.lastFrame())).toContain('evt_2: failed: POST /openai/chat/completions failed with HTTP 502: model down (1 log set FAILED, apology written)');
	});

	it('shows user messages, duplicates, unhandled and invalid events as finished rows', async () => {
		const {source, instance} = mount();
		source.emit(accepted({eventId: 'evt_3', eventType: 'platform.chat.user-message.created', handling: 'logged', chatId: 'chat_1', text: 'Hello'}));
		source.emit({type: 'duplicate', at, request: 2, remoteAddress: '127.0.0.1', status: 200, eventId: 'evt_3', eventType: 'platform.chat.user-message.created', chatId: 'chat_1'});
		source.emit(accepted({eventId: 'evt_4', eventType: 'platform.chat.other', handling: 'unhandled'}));
		source.emit(accepted({eventId: 'evt_5', handling: 'invalid', missing: ['payload.chatid']}));
		await waitFor(() => screen(instance.frames).includes('invalid:'));
		const text = screen(instance.frames);
		expect(text).toMatch(/200 user-message\.created chat_1 "Hello" logged/);
		expect(text).toContain('duplicate of evt_3, not processed again');
		expect(text).toContain('unhandled event type');
		expect(text).toContain('invalid: lacks payload.chatid; no platform call made');
	});

	it('shows a degraded status with its next step whole, wrapped inside the box', async () => {
		const next = 'set a valid key with `platform-tui keys set` (or PLATFORM_API_KEY), or rotate it with `platform-tui keys rotate`';
		const {instance} = mount({health: {text: 'degraded since 03:30:52: platform: the API key was rejected (GET /messages?chatId=chat_1 answered 401)', ok: false, next}});
		await waitFor(() => flat(instance.lastFrame()).includes('keys rotate`'));
		const frame = flat(instance.lastFrame());
		expect(frame).toContain('the API key was rejected (GET /messages?chatId=chat_1 answered 401)');
		expect(frame).toContain(`next: ${next}`);
		expect(instance.lastFrame()).not.toMatch(/…\s*│/);
	});

	it('counts down while the previous key is still valid', async () => {
		const now = Date.parse(at);
		const {instance} = mount({now, key: {keyMasked: '…newk', previousKeyMasked: '…oldk', previousKeyExpiresAt: new Date(now + (((2 * 3600) + (5 * 60) + 7) * 1000)).toISOString()}});
		await waitFor(() => flat(instance.lastFrame()).includes('key …newk'));
		expect(flat(instance.lastFrame())).toMatch(/previous key …oldk valid until \d{4}-\d\d-\d\d \d\d:\d\d \(in 2 h 05 min\)/);
	});

	it('hides an expired previous key', async () => {
		const now = Date.parse(at);
		const {instance} = mount({now, key: {keyMasked: '…newk', previousKeyMasked: '…oldk', previousKeyExpiresAt: new Date(now - 1000).toISOString()}});
		await waitFor(() => flat(instance.lastFrame()).includes('key …newk'));
		expect(flat(instance.lastFrame())).not.toContain('previous key');
	});

	it('asks to stop on q or Ctrl+C, and to quit at once on the next press', async () => {
		const {instance, quits} = mount();
		await waitFor(() => flat(instance.lastFrame()).includes('q or Ctrl+C to stop'));
		await effectsFlushed();
		instance.stdin.write('q');
		await waitFor(() => quits().length === 1);
		instance.stdin.write('\u0003');
		await waitFor(() => quits().length === 2);
		expect(quits()).toEqual([false, true]);
	});

	it('shows the drain and the final counters', async () => {
		const {source, instance} = mount();
		source.state.processing = 2;
		source.emit({type: 'draining', at, jobs: 2, timeoutMs: 25_000});
		await waitFor(() => flat(instance.lastFrame()).includes('Stopping'));
		expect(flat(instance.lastFrame())).toContain('Stopping: no new events · waiting up to 25 s for 2 jobs… · Ctrl+C again quits at once');
		source.emit({type: 'stopped', at, cutOff: 1, leftWaiting: 0, counters: {received: 4, verified: 4, rejected: 0, duplicates: 0, processing: 0, answered: 1, failed: 1}});
		await waitFor(() => flat(instance.lastFrame()).includes('Stopped.'));
		expect(flat(instance.lastFrame())).toContain('answered 1 · failed 1');
		expect(flat(instance.lastFrame())).toContain('1 job cut off at the drain deadline');
	});

	/** Gives the fake terminal a size and tells the screen, as a terminal resize does. */
	function resize(stdout: unknown, columns: number, rows: number): void {
		Object.defineProperty(stdout, 'columns', {value: columns, configurable: true});
		Object.defineProperty(stdout, 'rows', {value: rows, configurable: true});
		(stdout as {emit(name: string): void}).emit('resize');
	}

	const spinnerFrames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

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

	it('leaves no spinner behind when a second Ctrl+C quits at once', async () => {
		const {source, instance, quits} = mount();
		source.emit(accepted({eventId: 'evt_spin', chatId: 'chat_spin', text: 'Hi'}));
		await waitFor(() => spinnerFrames.test(instance.lastFrame() ?? ''));
		await effectsFlushed();
		instance.stdin.write('\u0003');
		source.state.processing = 1;
		source.emit({type: 'draining', at, jobs: 1, timeoutMs: 25_000});
		await waitFor(() => flat(instance.lastFrame()).includes('Stopping'));
		instance.stdin.write('\u0003');
		await waitFor(() => quits().length === 2);
		expect(spinnerFrames.test(instance.lastFrame() ?? '')).toBe(false);
	});

	it('renders a burst of events in a bounded number of frames', async () => {
		const {source, instance} = mount();
		const before = instance.frames.length;
		for (let index = 0; index < 500; index++) {
			source.emit(accepted({eventId: `evt_burst_${index}`, eventType: 'platform.chat.user-message.created', handling: 'logged', chatId: 'chat_b', text: `message ${index}`}));
		}

		await waitFor(() => flat(instance.lastFrame()).includes('"message 499"'));
		// 500 events arrived at once: they were folded into a few renders (at most 100 rows each), not 500.
		expect(instance.frames.length - before).toBeLessThan(30);
	});
});

describe('plain log lines', () => {
	it('writes one line per event', () => {
		const lines = [
			plainLine({type: 'rejected', at, request: 1, method: 'POST', path: '/webhook', remoteAddress: '10.1.2.3', status: 400, reason: 'missing-signature-headers', error: 'Missing signature headers'}),
			plainLine(accepted({eventId: 'evt_a', chatId: 'chat_a', text: 'Hi'})),
			plainLine({type: 'stage', at, eventId: 'evt_a', chatId: 'chat_a', stage: 'answered', durationMs: 1234, documents: 2}),
			plainLine({type: 'stopped', at, cutOff: 0, leftWaiting: 0, counters: {received: 2, verified: 1, rejected: 1, duplicates: 0, processing: 0, answered: 1, failed: 0}}),
		];
		for (const line of lines) {
			expect(line).not.toContain('\n');
		}

		expect(lines[0]).toMatch(/400 {2}POST \/webhook {2}rejected: Missing signature headers .* from 10\.1\.2\.3$/);
		expect(lines[1]).toMatch(/200 {2}external-module\.chosen {2}evt_a {2}chat chat_a {2}"Hi" {2}queued$/);
		expect(lines[2]).toMatch(/evt_a {2}chat chat_a {2}answered in 1234 ms$/);
		expect(lines[3]).toMatch(/stopped: received 2 · verified 1 · rejected 1/);
	});
});
