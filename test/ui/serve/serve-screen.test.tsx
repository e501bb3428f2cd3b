import {describe, expect, it} from 'vitest';
import {plainLine} from '../../../source/ui/serve/format.js';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';
import {accepted, arrowUp, at, flat, screenMounter} from './serve-screen-support.js';

/** Everything written to the fake terminal so far (Static rows are written once), wrapped lines joined. */
const screen = (frames: string[]) => flat(frames.join('\n'));

describe('ServeScreen (the event log)', () => {
	const mount = screenMounter();

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
