/**
 * The chosen-module job against full and sparse answers, on every backend: in memory (the
 * in-process receiver), the journal (`serve --data-dir`) and Redis (`serve --redis`). A sparse
 * platform answers an update-log with `{id}` and a modify-message with `{id}` only; neither may
 * turn a good answer into the apology. `events replay` runs against both modes too.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import replayCommand from '../../source/commands/events/replay.js';
import type {AnswerMode, LocalPlatform} from '../../source/local-platform/index.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {createReceiver} from '../../source/receiver/server.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import {startCli, type CliProcess} from '../support/cli.js';
import {defined} from '../support/defined.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {redisSkipReason, startRedis, type TestRedis} from '../support/redis.js';
import {runCommand} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';
import {tempDataDir} from './journal/helpers.js';
import {startModel} from './helpers.js';

const answerText = 'The lamp reaches twenty-two nautical miles.';
type Backend = 'memory' | 'journal' | 'redis';

/** A running receiver registered as the platform's external module. */
type Running = {stop(): Promise<void>};

async function startServe(platform: LocalPlatform, args: string[]): Promise<Running> {
	const run: CliProcess = startCli(['serve', '--port', '0', '--json', ...args], {env: platformEnv(platform)});
	const events = () => run.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
	const first = await waitFor(() => events()[0] ?? (run.child.exitCode === null ? undefined : {failed: run.stderr()}), {until: value => value !== undefined, what: 'serve to listen'});
	if (first?.type !== 'listening') {
		throw new Error(`serve did not start: ${JSON.stringify(first)} ${run.stderr()}`);
	}

	platform.setWebhookUrl(`${String(first.url)}/webhook`);
	return {
		async stop() {
			run.child.kill('SIGTERM');
			await run.closed;
		},
	};
}

async function startReceiver(platform: LocalPlatform, backend: Backend, redis: TestRedis | undefined): Promise<Running> {
	if (backend === 'journal') {
		return startServe(platform, ['--data-dir', tempDataDir()]);
	}

	if (backend === 'redis') {
		return startServe(platform, ['--redis', defined(redis, 'a Redis server').url]);
	}

	const client = clientFor(platform, {userId: undefined, companyId: undefined});
	const receiver = createReceiver({client, secrets: [platform.endpointSecret]});
	const {url} = await receiver.listen({host: '127.0.0.1', port: 0});
	platform.setWebhookUrl(`${url}/webhook`);
	return {
		async stop() {
			await receiver.close(1000);
			await client.close();
		},
	};
}

/**
 * Sends a question and returns the id of the assistant message the platform opened for it (the
 * latest message: a sparse history carries no ids).
 */
async function assistantMessage(user: PlatformClient, platform: LocalPlatform, chatId: string, question: string): Promise<string> {
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId, text: question});
	const latest = await user.getLatestMessage(chatId);
	expect(latest.role).toBe('ASSISTANT');
	return defined(latest.id, 'the assistant message id');
}

/** Asks in a new chat and waits for the receiver's answer; returns the assistant message id. */
async function askAndWait(platform: LocalPlatform, user: PlatformClient, question: string): Promise<string> {
	const chat = await user.createChat({title: question, assistantId: platform.assistantId});
	const messageId = await assistantMessage(user, platform, chat.id, question);
	await waitFor(() => platform.message(messageId)?.stoppedStreamingAt, {until: Boolean, what: `the answer to ${messageId}`});
	return messageId;
}

const backends: Backend[] = ['memory', 'journal', 'redis'];

describe.each(['full', 'sparse'] as AnswerMode[])('the chosen-module job with %s answers', answers => {
	let platform: LocalPlatform;
	let user: PlatformClient;
	let model: Awaited<ReturnType<typeof startModel>>;
	let redis: TestRedis | undefined;
	let running: Running | undefined;

	beforeAll(async () => {
		model = await startModel({content: answerText});
		platform = (await startPlatform({answers, llmUrl: model.url})).platform;
		user = clientFor(platform);
		if (redisSkipReason === undefined) {
			redis = await startRedis({appendonly: true});
		}
	});

	afterEach(async () => {
		await running?.stop();
		running = undefined;
	});

	afterAll(async () => {
		await user.close();
		await platform.close();
		await model.close();
		await redis?.stop();
	});

	for (const backend of backends) {
		it.skipIf(backend === 'redis' && redisSkipReason !== undefined)(`${backend}: the answer is written, both logs COMPLETED, no apology`, async () => {
			running = await startReceiver(platform, backend, redis);
			const messageIds = await Promise.all([1, 2, 3].map(async index => askAndWait(platform, user, `How far does the lamp reach (${backend} ${index})?`)));
			for (const messageId of messageIds) {
				expect(platform.message(messageId)?.text).toBe(answerText);
				expect(platform.message(messageId)?.text).not.toBe(apologyText);
				expect(platform.messageLogs(messageId).map(log => [log.order, log.status])).toEqual([[1, 'COMPLETED'], [2, 'COMPLETED']]);
			}
		});
	}

	it('events replay answers a stored event again', async () => {
		const directory = tempDataDir();
		const chat = await user.createChat({title: 'Replay', assistantId: platform.assistantId});
		const messageId = await assistantMessage(user, platform, chat.id, 'How far?');
		const event = buildTestEvent('external-module-chosen', {chatId: chat.id, assistantMessageId: messageId, text: 'How far does the lamp reach?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
		const journal = await openJournal({directory});
		try {
			await journal.accept({id: event.id, event: event.event, receivedAt: new Date().toISOString(), body: signDelivery(event, 'whsec_test').body, headers: {}, chatId: chat.id, status: 'received'});
			await journal.replay(event.id, async () => Promise.resolve({status: 'failed' as const, error: 'the platform answered 503'}));
		} finally {
			await journal.close();
		}

		const seen = platform.requests.length;
		const result = await runCommand(replayCommand, {argv: [event.id], flags: {dataDir: directory}, env: platformEnv(platform)});
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		// The replay itself answered over HTTP (the built-in assistant makes no requests).
		const calls = platform.requests.slice(seen).map(request => `${request.method} ${request.path} ${request.status}`);
		expect(calls).toContain('POST /openai/chat/completions 200');
		expect(calls).toContain(`PATCH /messages/${messageId} 200`);
		expect(platform.message(messageId)?.text).toBe(answerText);
		expect(platform.messageLogs(messageId).slice(-2).map(log => log.status)).toEqual(['COMPLETED', 'COMPLETED']);
	});
});
