/**
 * serve --forward-to: the handler gets the original body with a signature that verifies, a handler
 * failing three times then succeeding gets the event once (with a 2xx), and a forward that got its
 * 2xx is not sent again after a SIGKILL and a restart.
 */
import {describe, expect, it} from 'vitest';
import {PlatformClient} from '../../../source/platform/client.js';
import {prepareWebhookSecrets, verifyWebhookSignature} from '../../../source/platform/webhook-signature.js';
import {createForwarder} from '../../../source/receiver/forward/forward.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {createReceiver, type WebhookReceiver} from '../../../source/receiver/server.js';
import {startCli, type CliProcess} from '../../support/cli.js';
import {tempDataDir} from '../journal/helpers.js';
import {sendJson, startRecordingServer, type RecordingServer} from '../../support/recording-server.js';
import {waitFor} from '../../support/wait.js';
import {sendSigned, userMessageEvent} from '../helpers.js';
import {closersAfterEach} from '../../support/cleanups.js';

const secret = 'whsec_forwarding';
const cleanups = closersAfterEach();

async function start(handler: RecordingServer, options: {retries?: number; retry?: {baseMs: number; answerDeadlineMs?: number}} = {}): Promise<{receiver: WebhookReceiver; url: string}> {
	const client = new PlatformClient({baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test_key', appId: 'app_test'});
	const receiver = createReceiver({client, secrets: [secret, 'whsec_older'], backend: await openJournal({directory: tempDataDir()}), forward: {url: `${handler.url}/hooks`, secret, retries: options.retries ?? 5, baseMs: 5, capMs: 20}, ...(options.retry ? {retry: options.retry} : {})});
	const {url} = await receiver.listen({port: 0});
	cleanups.push(async () => {
		await receiver.close(2000);
		await client.close();
	});
	return {receiver, url};
}

describe('serve --forward-to', () => {
	it('MUST-SHOW: the handler sees the original body and a signature that verifies with the endpoint secret', async () => {
		const handler = await startRecordingServer();
		cleanups.push(async () => handler.close());
		const {receiver, url} = await start(handler);
		const event = userMessageEvent({text: 'Forward me, with "quotes" and ünïcode'});
		const raw = `${JSON.stringify(event, null, 2)}\n`;
		expect((await sendSigned(`${url}/webhook`, event, secret, {raw})).status).toBe(200);
		await waitFor(async () => (await receiver.event(String(event.id)))?.status, {until: status => status === 'answered', what: 'the forward'});
		const [request] = handler.requests;
		expect(request?.path).toBe('/hooks');
		expect(request?.body).toBe(raw);
		expect(request?.headers).toMatchObject({'x-platform-id': event.id, 'x-platform-version': '1.0.0', 'x-platform-user-id': 'user_test', 'content-type': 'application/json'});
		const check = verifyWebhookSignature({body: request?.raw ?? Buffer.alloc(0), signature: String(request?.headers['x-platform-signature']), createdAt: String(request?.headers['x-platform-created-at']), secrets: prepareWebhookSecrets([secret]), toleranceSeconds: 300, nowSeconds: Math.floor(Date.now() / 1000)});
		expect(check.ok).toBe(true);
	});

	it('MUST-SHOW: a handler that fails 3 times then succeeds gets the event once with a 2xx; the attempts are steps', async () => {
		let calls = 0;
		const handler = await startRecordingServer({handler: (_request, response) => {
			calls++;
			sendJson(response, calls <= 3 ? 503 : 204, {});
		}});
		cleanups.push(async () => handler.close());
		const {receiver, url} = await start(handler);
		const event = userMessageEvent();
		expect((await sendSigned(`${url}/webhook`, event, secret)).status).toBe(200);
		const stored = await waitFor(async () => receiver.event(String(event.id)), {until: found => found?.status === 'answered', what: 'the forward to succeed'});
		expect(handler.requests).toHaveLength(4);
		expect(stored?.steps.map(step => step.name)).toEqual(['forward-failed', 'forward-failed', 'forward-failed', 'forwarded']);
		expect(stored?.steps.at(-1)?.data).toEqual({attempt: 4, status: 204});
		// A redelivery of the same event is a duplicate: nothing more reaches the handler.
		expect((await sendSigned(`${url}/webhook`, event, secret)).status).toBe(200);
		expect(receiver.counters().duplicates).toBe(1);
		expect(handler.requests).toHaveLength(4);
	});

	it('a handler down past the in-process retries: the event waits on its stored schedule and is forwarded once when the handler is back', async () => {
		let calls = 0;
		const handler = await startRecordingServer({handler: (_request, response) => {
			calls++;
			sendJson(response, calls <= 4 ? 503 : 200, {});
		}});
		cleanups.push(async () => handler.close());
		const {receiver, url} = await start(handler, {retries: 1, retry: {baseMs: 20}});
		const stages: string[] = [];
		receiver.on('event', line => {
			if (line.type === 'stage') {
				stages.push(line.stage);
			}
		});
		const event = userMessageEvent();
		expect((await sendSigned(`${url}/webhook`, event, secret)).status).toBe(200);
		const stored = await waitFor(async () => receiver.event(String(event.id)), {until: found => found?.status === 'answered', what: 'the forward after the waits'});
		// Two rounds of two attempts (the first and one retry), each ending waiting; then the 2xx.
		expect(stages.filter(stage => stage === 'waiting')).toHaveLength(2);
		expect(handler.requests).toHaveLength(5);
		expect(stored?.steps.filter(step => step.name === 'waiting').map(step => step.data?.tries)).toEqual([1, 2]);
		expect(stored?.steps.filter(step => step.name === 'forwarded')).toHaveLength(1);
	});

	it('a handler refusing with a 4xx other than 408/429 fails the event at once: no retry, no wait', async () => {
		const handler = await startRecordingServer({handler: (_request, response) => {
			sendJson(response, 422, {error: 'unprocessable'});
		}});
		cleanups.push(async () => handler.close());
		const {receiver, url} = await start(handler, {retry: {baseMs: 20}});
		const event = userMessageEvent();
		expect((await sendSigned(`${url}/webhook`, event, secret)).status).toBe(200);
		const stored = await waitFor(async () => receiver.event(String(event.id)), {until: found => found?.status === 'failed', what: 'the refused forward'});
		expect(handler.requests).toHaveLength(1);
		expect(stored?.error).toContain('the handler answered 422');
	});

	it('a job whose steps show the 2xx (a resume after a crash) sends nothing', async () => {
		const handler = await startRecordingServer();
		cleanups.push(async () => handler.close());
		const forwarder = createForwarder({url: handler.url, secret});
		cleanups.push(async () => forwarder.close());
		const event = {id: 'evt_x', event: 'platform.chat.user-message.created', receivedAt: new Date().toISOString(), body: '{}', headers: {}, status: 'processing' as const, updatedAt: new Date().toISOString(), attempts: 2, steps: [{name: 'forwarded', at: new Date().toISOString(), data: {attempt: 1, status: 200}}]};
		const result = await forwarder.handler({event, signal: new AbortController().signal, recordStep: async () => Promise.resolve()});
		expect(result).toEqual({status: 'answered'});
		expect(handler.requests).toHaveLength(0);
	});

	it('MUST-SHOW: a SIGKILL after the handler\'s 2xx does not send the event again after the restart', async () => {
		const handler = await startRecordingServer();
		cleanups.push(async () => handler.close());
		const dataDir = tempDataDir();
		const env = {PLATFORM_BASE_URL: 'http://127.0.0.1:9', PLATFORM_API_KEY: 'sk_test_key', PLATFORM_APP_ID: 'app_test', PLATFORM_ENDPOINT_SECRET: secret};
		const serve = async (): Promise<CliProcess & {url: string; lines: () => Array<Record<string, unknown>>}> => {
			const run = startCli(['serve', '--port', '0', '--json', '--data-dir', dataDir, '--forward-to', `${handler.url}/hooks`], {env});
			cleanups.push(async () => {
				if (run.child.exitCode === null && run.child.signalCode === null) {
					run.child.kill('SIGKILL');
				}

				await run.closed;
			});
			const lines = () => run.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
			const listening = await waitFor(() => lines()[0], {what: 'serve to listen'});
			return {...run, url: String(listening.url), lines};
		};

		const first = await serve();
		const event = userMessageEvent();
		expect((await sendSigned(`${first.url}/webhook`, event, secret)).status).toBe(200);
		await waitFor(() => first.lines().find(line => line.type === 'stage' && line.stage === 'answered' && line.eventId === event.id), {what: 'the forward to get its 2xx'});
		first.child.kill('SIGKILL');
		await first.closed;

		const second = await serve();
		const next = userMessageEvent();
		expect((await sendSigned(`${second.url}/webhook`, next, secret)).status).toBe(200);
		await waitFor(() => second.lines().find(line => line.type === 'stage' && line.stage === 'answered' && line.eventId === next.id), {what: 'the second forward'});
		const ids = handler.requests.map(request => request.headers['x-platform-id']);
		expect(ids.filter(id => id === event.id)).toHaveLength(1);
		expect(ids.filter(id => id === next.id)).toHaveLength(1);
	});
});
