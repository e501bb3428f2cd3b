/**
 * Redis stopped for 10 s under load (SIGKILL, then started again on the same AOF data): the one
 * `serve --redis` keeps running, answers 503 while Redis is away, reports degraded, and resumes on
 * its own. Every acknowledged event is answered exactly once (one final write per message, the
 * model's answer), and no job stays active.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startCli} from '../../support/cli.js';
import {defined} from '../../support/defined.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {chosenEvent, sendSigned, startModel} from '../helpers.js';
import {messageWrites} from './events.js';

const eventCount = 60;
const answer = 'The answer from the model.';

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('serve --redis while Redis is away for 10 s', () => {
	let platform: TestPlatform;
	let model: Awaited<ReturnType<typeof startModel>>;

	beforeAll(async () => {
		model = await startModel({delayMs: 0, content: answer});
		platform = await startPlatform({llmUrl: model.url, limits: {maxRequestLog: 50_000}});
	});

	afterAll(async () => {
		await platform.close();
		await model.close();
	});

	it('503 and degraded meanwhile, resumes by itself, every acknowledged event answered exactly once', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'platform-tui-outage-'));
		let redis: TestRedis = await startRedis({dir, appendonly: true});
		const port = defined(redis.port, 'the Redis port');
		const {platform: local} = platform;
		const user = platform.client();
		const run = startCli(['serve', '--redis', redis.url, '--port', '0', '--concurrency', '4', '--json'], {env: platform.env()});
		try {
			const chat = await user.createChat({title: 'Outage', assistantId: local.assistantId});
			for (let index = 0; index < eventCount; index++) {
				await user.createSpaceMessage({assistantId: local.assistantId, chatId: chat.id, text: `Question ${String(index)}`});
			}

			const targets = (await user.getChatMessages(chat.id)).messages.filter(message => message.role === 'ASSISTANT').map(message => defined(message.id, 'an assistant message id'));
			await waitFor(() => targets.every(id => local.message(id)?.stoppedStreamingAt), {what: 'the built-in answers'});
			const listening = await waitFor(() => run.stdout().split('\n').find(line => line.includes('"listening"')), {what: `serve to listen (stderr: ${run.stderr()})`});
			const url = (JSON.parse(listening) as {webhookUrl: string}).webhookUrl;
			const writesBefore = local.requests.length;
			model.setDelay(300);

			const events = targets.map((messageId, index) => chosenEvent({id: `evt_outage_${String(index).padStart(3, '0')}`, chatId: chat.id, assistantMessageId: messageId, text: `Question ${String(index)}`, userId: local.userId, companyId: local.companyId}));
			let refused = 0;
			// The platform's way: a delivery refused with 503 comes again until it gets 200.
			const deliver = async (event: Record<string, unknown>): Promise<void> => {
				for (let attempt = 0; attempt < 1000; attempt++) {
					const {status} = await sendSigned(url, event, local.endpointSecret);
					if (status === 200) {
						return;
					}

					expect(status).toBe(503);
					refused++;
					await new Promise(resolve => {
						setTimeout(resolve, 100);
					});
				}

				throw new Error(`${String(event.id)} never acknowledged`);
			};

			await Promise.all(events.slice(0, 20).map(deliver));
			await waitFor(() => model.active > 0, {what: 'answers in flight'});
			const child = defined(redis.process, 'the Redis process');
			const gone = new Promise(resolve => child.once('exit', resolve));
			child.kill('SIGKILL');
			await gone;
			const stoppedAt = Date.now();
			const later = Promise.all(events.slice(20).map(deliver));
			await waitFor(() => run.stdout().includes('"status":"degraded"'), {what: 'a degraded status'});
			await waitFor(() => refused > 0 && Date.now() - stoppedAt >= 10_000, {intervalMs: 100, what: '10 s with Redis away'});
			redis = await startRedis({dir, appendonly: true, port});
			await later;

			const reader = await openRedisBackend({url: redis.url});
			try {
				// The last value names what is not finished first (a timeout then says which events, in what state).
				const ended = (status: string) => status === 'answered' || status === 'failed';
				const {listed: finished} = await waitFor(async () => {
					const listed = await reader.list({});
					const queue = (await reader.stats()).queue;
					return {stored: listed.length, queue, unfinished: listed.filter(event => !ended(event.status)).map(event => `${event.id}: ${event.status}, attempts ${String(event.attempts)}`), listed};
				}, {until: state => state.stored === eventCount && state.unfinished.length === 0, intervalMs: 200, what: 'every event to finish'});
				expect(finished.filter(event => event.status !== 'answered').map(event => event.id)).toEqual([]);
				expect((await reader.stats()).queue).toMatchObject({active: 0, waiting: 0});
			} finally {
				await reader.close();
			}

			const writes = messageWrites(local.requests.slice(writesBefore));

			expect(targets.filter(id => writes.get(id) !== 1)).toEqual([]);
			expect(targets.filter(id => local.message(id)?.text !== answer)).toEqual([]);
			// The same process throughout: it never exited.
			expect(run.child.exitCode).toBeNull();
			expect(run.stdout()).toContain('"status":"ready"');
			console.log(`redis outage: ${String(eventCount)} events answered once each; ${String(refused)} deliveries got 503 while Redis was away`);
		} finally {
			run.child.kill('SIGTERM');
			await run.closed;
			await user.close();
			await redis.stop();
			rmSync(dir, {recursive: true, force: true});
		}
	});
});
