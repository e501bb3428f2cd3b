/**
 * listen in-process against the local platform: a forwarded event signed as the platform signs
 * webhooks, a 5 s refusal of the socket reported as exactly one gap, answer mode writing one final
 * message per chosen event, a hanging forward target that never stops the socket from being read,
 * and the refusals said in one sentence (401, 404, a second listen, --redis).
 */
import {describe, expect, it} from 'vitest';
import {describeError} from '../../../source/cli/error-message.js';
import listen from '../../../source/commands/listen/listen.js';
import {verifyWebhookSignature, prepareWebhookSecrets} from '../../../source/platform/webhook-signature.js';
import {runCommand} from '../../support/run-command.js';
import {startRecordingServer} from '../../support/recording-server.js';
import {waitFor} from '../../support/wait.js';
import {countingHandler, dataDirectory, publishAtPace, socketPlatform, startListen, userEvent} from './listen-support.js';
import {closersAfterEach} from '../../support/cleanups.js';

const cleanups = closersAfterEach();

describe('listen', () => {
	it('forwards each event signed as the platform signs webhooks, and shows each response', async () => {
		const test = await socketPlatform(cleanups);
		const handler = await countingHandler(cleanups);
		const listening = startListen(test, {forwardTo: handler.url, dataDir: await dataDirectory(cleanups)}, cleanups);
		await waitFor(() => test.platform.publishEvent(userEvent('evt_probe', test)) > 0, {what: 'a live stream'});
		await waitFor(() => handler.counts.get('evt_probe') === 1, {what: 'the forward'});
		const request = handler.server.requests[0];
		expect(request?.headers).toMatchObject({'x-platform-id': 'evt_probe', 'x-platform-version': '1.0.0', 'x-platform-user-id': test.platform.userId, 'x-platform-company-id': test.platform.companyId});
		const check = verifyWebhookSignature({body: request?.raw ?? Buffer.alloc(0), signature: String(request?.headers['x-platform-signature']), createdAt: String(request?.headers['x-platform-created-at']), secrets: prepareWebhookSecrets([test.platform.endpointSecret]), toleranceSeconds: 300, nowSeconds: Math.floor(Date.now() / 1000)});
		expect(check.ok).toBe(true);
		const stage = await waitFor(() => listening.ofType('stage').find(record => record.stage === 'answered'));
		expect(stage).toMatchObject({eventId: 'evt_probe', forward: {status: 200}});
		expect(listening.ofType('accepted')[0]).toMatchObject({eventId: 'evt_probe', via: 'event-socket'});
		listening.stop.abort();
		expect(await listening.done).toBe(0);
		expect(listening.ofType('socket-listening')[0]).toMatchObject({events: ['platform.chat.user-message.created', 'platform.chat.external-module.chosen'], reconnectEvery: '1s'});
		expect(listening.ofType('socket-closed')[0]).toMatchObject({gaps: 0, uncoveredMs: 0});
		expect(listening.ofType('socket-closed')[0]?.events).toBeGreaterThanOrEqual(1);
	});

	it('a 5 s refusal of the socket is exactly one gap that covers it; every event outside it is forwarded once', async () => {
		const test = await socketPlatform(cleanups, 60_000);
		const handler = await countingHandler(cleanups);
		const listening = startListen(test, {forwardTo: handler.url, dataDir: await dataDirectory(cleanups), reconnectEvery: '30s'}, cleanups);
		await waitFor(() => test.platform.publishEvent(userEvent('evt_live', test)) > 0, {what: 'a live stream'});
		let refusedAt = 0;
		const published = await publishAtPace(test, {perSecond: 20, seconds: 8, prefix: 'evt_refusal', during(elapsedMs) {
			if (refusedAt === 0 && elapsedMs >= 1000) {
				refusedAt = Date.now();
				test.platform.dropEventStreams(5000);
			}
		}});
		const [gap] = await waitFor(() => listening.ofType('gap'), {until: gaps => gaps.length > 0, what: 'the gap'});
		const from = Date.parse(String(gap?.from));
		const to = Date.parse(String(gap?.to));
		expect(from).toBeGreaterThanOrEqual(refusedAt);
		expect(to).toBeGreaterThanOrEqual(refusedAt + 5000);
		const outside = [...published].filter(([, at]) => at < refusedAt || at > to).map(([id]) => id);
		await waitFor(() => outside.every(id => handler.counts.get(id) === 1), {what: 'every event outside the gap forwarded'});
		expect([...handler.counts.values()].every(count => count === 1)).toBe(true);
		expect(listening.ofType('gap')).toHaveLength(1);
	});

	it('answers chosen-module events as serve does: one final message per chosen event', async () => {
		const test = await socketPlatform(cleanups);
		const listening = startListen(test, {dataDir: await dataDirectory(cleanups)}, cleanups);
		// The module is external once a stream subscribed to the chosen event is live.
		await waitFor(() => test.platform.publishEvent(userEvent('evt_probe', test)) > 0, {what: 'a live stream'});
		const client = test.client();
		cleanups.push(async () => client.close());
		const chat = await client.createChat({title: 'listen', assistantId: test.platform.assistantId});
		for (const text of ['What is in the space?', 'And what else?']) {
			await client.createSpaceMessage({assistantId: test.platform.assistantId, chatId: chat.id, text});
		}

		const answered = await waitFor(() => listening.ofType('stage').filter(record => record.stage === 'answered'), {until: records => records.length === 2, what: 'both answers'});
		const chosen = listening.ofType('accepted').filter(record => record.eventType === 'platform.chat.external-module.chosen');
		expect(chosen).toHaveLength(2);
		expect(answered.map(record => record.eventId).sort()).toEqual(chosen.map(record => record.eventId).sort());
		const modifies = test.platform.requests.filter(request => request.method === 'PATCH' && request.path.startsWith('/messages/'));
		expect(modifies).toHaveLength(2);
		expect(new Set(modifies.map(request => request.path)).size).toBe(2);
		for (const request of modifies) {
			const message = test.platform.message(request.path.split('/')[2]?.split('?')[0] ?? '');
			expect(message?.text).toBeTruthy();
			expect(message?.stoppedStreamingAt).toBeTruthy();
		}
	});

	it('reads the socket on while the forward target hangs: the events wait in the journal and are forwarded once it answers', async () => {
		const test = await socketPlatform(cleanups, 60_000);
		const counts = new Map<string, number>();
		const held: Array<() => void> = [];
		let answering = false;
		const server = await startRecordingServer({keepBodiesUnder: 4096, handler(request, response) {
			const answer = () => {
				const id = String(request.headers['x-platform-id']);
				counts.set(id, (counts.get(id) ?? 0) + 1);
				response.writeHead(200, {'content-type': 'application/json'}).end('{}');
			};

			if (answering) {
				answer();
			} else {
				held.push(answer);
			}
		}});
		cleanups.push(async () => {
			for (const answer of held.splice(0)) {
				answer();
			}

			await server.close();
		});
		const listening = startListen(test, {forwardTo: `${server.url}/webhook`, dataDir: await dataDirectory(cleanups), reconnectEvery: '30s', concurrency: 2}, cleanups);
		await waitFor(() => test.platform.publishEvent(userEvent('evt_hang_probe', test)) > 0, {what: 'a live stream'});
		await waitFor(() => held.length > 0, {what: 'the first forward held open'});
		const ids = Array.from({length: 30}, (_, index) => `evt_hang_${index}`);
		for (const id of ids) {
			test.platform.publishEvent(userEvent(id, test));
		}

		// Every event is read off the socket and stored while no forward has been answered.
		await waitFor(() => listening.ofType('accepted').length === ids.length + 1, {what: 'every event stored'});
		expect(counts.size).toBe(0);
		answering = true;
		for (const answer of held.splice(0)) {
			answer();
		}

		await waitFor(() => [...ids, 'evt_hang_probe'].every(id => (counts.get(id) ?? 0) >= 1), {what: 'every event forwarded'});
		listening.stop.abort();
		expect(await listening.done).toBe(0);
		expect([...counts.values()].every(count => count === 1)).toBe(true);
	});

	it('stops with one sentence on a refused key (after reading it again), on a platform without a socket, and beside another listen', async () => {
		const test = await socketPlatform(cleanups);
		const refused = await runCommand(listen, {flags: {dataDir: await dataDirectory(cleanups)}, env: test.env({PLATFORM_API_KEY: 'sk_wrong_key_1234'})});
		expect(refused.code).toBe(1);
		expect(describeError(refused.error).message).toContain('refused the API key …1234 on the event socket (HTTP 401), also after the stored key was read again');
		const missing = await runCommand(listen, {flags: {dataDir: await dataDirectory(cleanups), socketUrl: `${test.url}/no/socket/here`}, env: test.env()});
		expect(describeError(missing.error).message).toContain('This platform has no event socket (HTTP 404');
		const directory = await dataDirectory(cleanups);
		const first = startListen(test, {dataDir: directory}, cleanups);
		await waitFor(() => first.ofType('socket-listening').length > 0);
		const second = await runCommand(listen, {flags: {dataDir: directory}, env: test.env()});
		expect(describeError(second.error).message).toBe(`Another listen (process ${process.pid}) is already using the event journal in ${directory}.`);
		const redis = await runCommand(listen, {flags: {redis: 'redis://127.0.0.1:6379'}, env: test.env()});
		expect(redis.stderr).toContain('--redis is not for listen');
	});
});
