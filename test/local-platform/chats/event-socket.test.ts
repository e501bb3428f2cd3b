/**
 * The local platform's event socket, as platform-api.md describes it: the path and headers, 401 for
 * a refused key, the subscriptions filter, `data:` frames, a short delay before a stream is live,
 * no replay, streams closed without warning after the max age, every webhook event also published,
 * and the `eventSocket:drop` fault.
 */
import {describe, expect, it} from 'vitest';
import {Agent} from 'undici';
import {openEventStream, eventSocketUrl, StreamRefused, type OpenStream} from '../../../source/platform/event-socket.js';
import {eventTypes, type WebhookEvent} from '../../../source/platform/types.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {closersAfterEach} from '../../support/cleanups.js';

const cleanups = closersAfterEach();

async function platformWith(options: Parameters<typeof startPlatform>[0] = {}): Promise<TestPlatform> {
	const platform = await startPlatform({eventSocketGoLiveMs: 0, ...options});
	cleanups.push(async () => platform.close());
	return platform;
}

function identity(test: TestPlatform, apiKey = test.platform.apiKey) {
	return {apiKey, appId: test.platform.appId, userId: test.platform.userId, companyId: test.platform.companyId};
}

async function open(test: TestPlatform, events: string[], frames: string[], apiKey?: string): Promise<OpenStream> {
	const agent = new Agent({bodyTimeout: 0});
	cleanups.push(async () => agent.close());
	const stream = await openEventStream(eventSocketUrl(`${test.url}/some/base/path`, events), identity(test, apiKey), data => frames.push(data), agent);
	cleanups.push(async () => {
		stream.close();
		await stream.ended;
	});
	return stream;
}

function event(id: string, name: string = eventTypes.userMessageCreated): WebhookEvent {
	return {id, version: '1.0.0', event: name, createdAt: String(Math.floor(Date.now() / 1000)), userId: 'user_1', companyId: 'company_1', payload: {chatId: 'chat_1', text: id}};
}

describe('the local platform\'s event socket', () => {
	it('refuses a wrong key with 401 and a missing subscription list with 400', async () => {
		const test = await platformWith();
		const refusal = await open(test, [eventTypes.userMessageCreated], [], 'sk_wrong').catch((error: unknown) => error);
		expect(refusal).toBeInstanceOf(StreamRefused);
		expect((refusal as StreamRefused).status).toBe(401);
		const bare = await fetch(`${test.url}/public/event-socket/events/stream`, {headers: {authorization: `Bearer ${test.platform.apiKey}`, 'x-app-id': test.platform.appId, 'x-user-id': 'u', 'x-company-id': 'c'}});
		expect(bare.status).toBe(400);
	});

	it('sends subscribed events as data frames to every live stream, and nothing published before', async () => {
		const test = await platformWith();
		expect(test.platform.publishEvent(event('evt_before'))).toBe(0);
		const first: string[] = [];
		const second: string[] = [];
		await open(test, [eventTypes.userMessageCreated], first);
		await open(test, [eventTypes.externalModuleChosen, eventTypes.userMessageCreated], second);
		let probes = 0;
		await waitFor(() => test.platform.publishEvent(event(`evt_probe_${++probes}`)) === 2, {what: 'both streams to be live'});
		test.platform.publishEvent(event('evt_one'));
		test.platform.publishEvent(event('evt_chosen', eventTypes.externalModuleChosen));
		const ids = (frames: string[]) => frames.map(text => (JSON.parse(text) as {id: string}).id);
		await waitFor(() => ids(second).includes('evt_chosen') && ids(first).includes('evt_one'), {what: 'the frames'});
		expect(ids(first).at(-1)).toBe('evt_one');
		expect(ids(second).slice(-2)).toEqual(['evt_one', 'evt_chosen']);
		expect(ids(first)).not.toContain('evt_before');
	});

	it('a new stream is live only after the go-live delay', async () => {
		const test = await platformWith({eventSocketGoLiveMs: 200});
		const frames: string[] = [];
		await open(test, [eventTypes.userMessageCreated], frames);
		expect(test.platform.publishEvent(event('evt_early'))).toBe(0);
		await waitFor(() => test.platform.publishEvent(event('evt_late')) === 1, {what: 'the stream to be live'});
		await waitFor(() => frames.length === 1);
		expect(frames[0]).toContain('evt_late');
	});

	it('closes every stream after the max age without warning, and the drop fault closes one at once', async () => {
		const test = await platformWith({eventSocketMaxAgeMs: 100, faults: [{operation: 'eventSocket', kind: 'drop', times: 1}]});
		const dropped = await open(test, [eventTypes.userMessageCreated], []);
		expect(await dropped.ended).toEqual({});
		const aged = await open(test, [eventTypes.userMessageCreated], []);
		await aged.ended;
		expect(test.platform.eventSocket).toMatchObject({opened: 2, open: 0});
	});

	it('publishes each event of a chat turn: with no webhook URL the user message, with a chosen-module stream both', async () => {
		const test = await platformWith();
		const frames: string[] = [];
		await open(test, [eventTypes.userMessageCreated, eventTypes.externalModuleChosen], frames);
		await waitFor(() => test.platform.eventSocket.open === 1);
		const client = test.client();
		cleanups.push(async () => client.close());
		const chat = await client.createChat({title: 'socket', assistantId: test.platform.assistantId});
		await client.createSpaceMessage({assistantId: test.platform.assistantId, chatId: chat.id, text: 'hello socket'});
		await waitFor(() => frames.length === 2, {what: 'both events of the turn'});
		expect(frames.map(text => (JSON.parse(text) as {event: string}).event)).toEqual([eventTypes.userMessageCreated, eventTypes.externalModuleChosen]);
	});
});
