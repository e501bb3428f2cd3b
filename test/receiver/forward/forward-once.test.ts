/**
 * Forwards carry the event id as `webhook-id` (Standard Webhooks), the same on every copy, and a
 * handler slower than the attempt timeout gets no second copy while the first is still open.
 */
import {describe, expect, it} from 'vitest';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {ManualClock} from '../../../source/platform/clock.js';
import {createForwarder} from '../../../source/receiver/forward/forward.js';
import {sendJson, startRecordingServer} from '../../support/recording-server.js';
import {waitFor} from '../../support/wait.js';
import {closersAfterEach} from '../../support/cleanups.js';

const secret = 'whsec_forward_once';
const cleanups = closersAfterEach();

function storedEvent(id: string): StoredEvent {
	const at = new Date().toISOString();
	return {id, event: 'platform.chat.user-message.created', receivedAt: at, body: JSON.stringify({id, event: 'platform.chat.user-message.created'}), headers: {}, status: 'processing', updatedAt: at, attempts: 1, steps: []};
}

describe('forwards', () => {
	it('carry webhook-id, the same event id on every copy a failing handler gets', async () => {
		let calls = 0;
		const handler = await startRecordingServer({handler: (_request, response) => {
			calls++;
			sendJson(response, calls === 1 ? 500 : 200, {});
		}});
		cleanups.push(async () => handler.close());
		const forwarder = createForwarder({url: handler.url, secret, retries: 2, baseMs: 1, capMs: 2});
		cleanups.push(async () => forwarder.close());
		const result = await forwarder.handler({event: storedEvent('evt_webhook_id'), signal: new AbortController().signal, recordStep: async () => Promise.resolve()});
		expect(result).toEqual({status: 'answered'});
		expect(handler.requests.map(request => request.headers['webhook-id'])).toEqual(['evt_webhook_id', 'evt_webhook_id']);
	});

	it('a handler slower than the attempt timeout gets one copy, and its late 2xx counts', async () => {
		let release: () => void = () => undefined;
		const slow = new Promise<void>(resolve => {
			release = resolve;
		});
		const handler = await startRecordingServer({handler: async (_request, response) => {
			await slow;
			sendJson(response, 200, {});
		}});
		cleanups.push(async () => handler.close());
		const clock = new ManualClock();
		const forwarder = createForwarder({url: handler.url, secret, retries: 5, baseMs: 1, capMs: 2, timeoutMs: 50, openLimitMs: 60_000, clock});
		cleanups.push(async () => forwarder.close());
		const forwarding = forwarder.handler({event: storedEvent('evt_slow'), signal: new AbortController().signal, recordStep: async () => Promise.resolve()});
		await waitFor(() => handler.requests.length === 1, {what: 'the first copy to reach the handler'});
		// Well past the attempt timeout (and every retry's backoff): still the one request, still
		// open, and nothing waits on the clock but its open limit (no backoff, no second copy).
		clock.advance(10_000);
		expect(clock.pendingSleeps).toBe(1);
		expect(clock.nextWakeMs()).toBe(50_000);
		expect(handler.requests).toHaveLength(1);
		release();
		expect(await forwarding).toEqual({status: 'answered'});
		expect(handler.requests).toHaveLength(1);
	});
});
