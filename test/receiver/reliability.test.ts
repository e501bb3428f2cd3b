import {execFile} from 'node:child_process';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';
import {signWebhookBody} from '../../source/platform/webhook-signature.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {createReceiver, type WebhookReceiver} from '../../source/receiver/server.js';
import {missingTextReason} from '../../source/receiver/answer/answer.js';
import type {ReceiverEvent, StageEvent} from '../../source/receiver/events.js';
import {stageText} from '../../source/ui/serve/format.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {chosenEvent, sendSigned} from './helpers.js';
import {defined} from '../support/defined.js';

/** POSTs `size` bytes with Python's http.client, which writes the whole body before reading the answer. */
async function pythonPost(url: string, size: number, headers: Record<string, string>): Promise<string> {
	const script = [
		'import http.client, json, sys, urllib.parse',
		'u = urllib.parse.urlparse(sys.argv[1])',
		'c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)',
		'c.request("POST", u.path, body=b" " * int(sys.argv[2]), headers=json.loads(sys.argv[3]))',
		'r = c.getresponse()',
		'print(r.status, r.read().decode())',
	].join('\n');
	return new Promise((resolve, reject) => {
		execFile('python3', ['-c', script, url, String(size), JSON.stringify(headers)], {timeout: 30_000}, (error, stdout, stderr) => {
			if (error) {
				reject(new Error(`${error.message}\n${stderr}`));
				return;
			}

			resolve(stdout.trim());
		});
	});
}

const hasPython = await new Promise<boolean>(resolve => {
	execFile('python3', ['--version'], error => {
		resolve(!error);
	});
});

if (!hasPython) {
	console.log('Skipping the Python client test of the lingering close: python3 is not on PATH.');
}

describe('receiver reliability (real HTTP, local platform)', () => {
	let platform: LocalPlatform;
	let user: PlatformClient;
	let receiverClient: PlatformClient;
	let receiver: WebhookReceiver;
	let url: string;
	const events: ReceiverEvent[] = [];

	beforeAll(async () => {
		({platform} = await startPlatform());
		user = clientFor(platform);
		receiverClient = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, retries: 0});
		receiver = createReceiver({client: receiverClient, secrets: [platform.endpointSecret], cleanupTimeoutMs: 5000});
		receiver.on('event', event => events.push(event));
		url = (await receiver.listen({port: 0})).url;
		platform.setWebhookUrl(`${url}/webhook`);
	});

	afterAll(async () => {
		await receiver.close(1000);
		await receiverClient.close();
		await user.close();
		await platform.close();
	});

	/** A chat whose assistant message was answered once; returns its ids. */
	async function answeredChat(title: string): Promise<{chatId: string; assistantMessageId: string}> {
		const chat = await user.createChat({title, assistantId: platform.assistantId});
		await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Hello?'});
		const message = await waitFor(async () => user.getLatestMessage(chat.id), {until: latest => Boolean(latest.stoppedStreamingAt), what: 'the first answer'});
		return {chatId: chat.id, assistantMessageId: defined(message.id, 'the answered message id')};
	}

	const failedStage = async (eventId: string): Promise<StageEvent> => {
		const found = await waitFor(() => events.find((event): event is StageEvent => event.type === 'stage' && event.eventId === eventId && event.stage === 'failed'), {until: event => event !== undefined, what: `the failure of ${eventId}`});
		if (!found) {
			throw new Error(`no failure of ${eventId}`);
		}

		return found;
	};

	it.runIf(hasPython)('a client that writes 5 MiB before reading gets the 413, not a broken pipe (lingering close)', async () => {
		const signed = {'x-platform-signature': 'a'.repeat(64), 'x-platform-created-at': String(Math.floor(Date.now() / 1000)), 'content-type': 'application/json'};
		expect(await pythonPost(`${url}/webhook`, 5 * 1024 * 1024, signed)).toBe('413 {"success":false,"error":"Request body too large (limit 1 MiB)"}');
		// Without signature headers a 2 MiB body is refused first for those (spec §4.2's order).
		expect(await pythonPost(`${url}/webhook`, 2 * 1024 * 1024, {'content-type': 'application/json'})).toBe('400 {"success":false,"error":"Missing signature headers"}');
		expect((await sendSigned(`${url}/webhook`, {id: 'evt_after_linger', event: 'platform.chat.other'}, platform.endpointSecret)).status).toBe(200);
	});

	it('a chosen event with the ids but no user text takes the failure path: the apology is written and the stream stopped', async () => {
		const {chatId, assistantMessageId} = await answeredChat('No text');
		const logsBefore = platform.messageLogs(assistantMessageId).length;
		const event = chosenEvent({chatId, text: 'x', assistantMessageId, userId: platform.userId, companyId: platform.companyId});
		delete (event.payload as {userMessage?: unknown}).userMessage;
		expect((await sendSigned(`${url}/webhook`, event, platform.endpointSecret)).status).toBe(200);
		const failed = await failedStage(event.id as string);
		expect(failed).toMatchObject({reason: missingTextReason, cleanup: {apologyWritten: true, logsFailed: 0}});
		expect(platform.message(assistantMessageId)).toMatchObject({text: apologyText});
		expect(platform.message(assistantMessageId)?.stoppedStreamingAt).toBeTypeOf('string');
		expect(platform.messageLogs(assistantMessageId)).toHaveLength(logsBefore);
		const stored = await receiver.event(event.id as string);
		expect(stored).toMatchObject({status: 'failed', error: missingTextReason});
		expect(stored?.steps.map(step => step.name)).toEqual(['failing', 'final-writing', 'message-written']);
	});

	it('an event lacking the ids to write anything makes no call and is stored as ignored with a note', async () => {
		const event = chosenEvent({chatId: 'chat_none', text: 'x', assistantMessageId: 'msg_none', userId: platform.userId, companyId: platform.companyId});
		delete (event.payload as {assistantMessage?: unknown}).assistantMessage;
		const before = platform.requests.length;
		expect((await sendSigned(`${url}/webhook`, event, platform.endpointSecret)).status).toBe(200);
		expect(await receiver.event(event.id as string)).toMatchObject({status: 'ignored', note: 'lacks payload.assistantMessage.id; no platform call made'});
		expect(platform.requests.length).toBe(before);
	});

	it('a chosen event with a wrong chatid: the apology cannot be written either, and the row says so and why', async () => {
		const {assistantMessageId} = await answeredChat('Wrong chat');
		const event = chosenEvent({chatId: 'chat_wrong000000000000000000', text: 'Where?', assistantMessageId, userId: platform.userId, companyId: platform.companyId});
		expect((await sendSigned(`${url}/webhook`, event, platform.endpointSecret)).status).toBe(200);
		const failed = await failedStage(event.id as string);
		expect(failed.cleanup).toMatchObject({apologyWritten: false});
		expect(failed.cleanup?.errors.join(' ')).toMatch(/writing the apology to message msg_\w+ in chat chat_wrong0+: .*400/);
		const row = stageText(failed);
		expect(row).toContain('apology NOT written');
		expect(row).toContain('chat_wrong');
		expect((await receiver.event(event.id as string))?.error).toMatch(/the apology could not be written/);
		// The logs it opened were closed.
		expect(platform.messageLogs(assistantMessageId).filter(log => log.status === 'RUNNING')).toEqual([]);
	});

	it('refuses a freshly signed delivery of an event created before the replay window', async () => {
		const event = chosenEvent({chatId: 'chat_old', text: 'old', assistantMessageId: 'msg_old', userId: platform.userId, companyId: platform.companyId});
		event.createdAt = String(Math.floor(Date.now() / 1000) - (2 * 24 * 3600));
		const answer = await sendSigned(`${url}/webhook`, event, platform.endpointSecret);
		expect(answer.status).toBe(400);
		expect(answer.text).toContain('"success":false,"error":"Event too old');
		expect(events.at(-1)).toMatchObject({type: 'rejected', reason: 'event-too-old', eventId: event.id});
	});

	it('a signed body with a UTF-8 BOM is accepted over HTTP', async () => {
		const raw = `\uFEFF${JSON.stringify({id: 'evt_bom', event: 'platform.chat.other'})}`;
		const answer = await sendSigned(`${url}/webhook`, {}, platform.endpointSecret, {raw, signature: signWebhookBody(raw, platform.endpointSecret)});
		expect(answer.status).toBe(200);
	});
});
