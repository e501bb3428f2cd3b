/**
 * What an answered chosen-module event costs (part of `npm run bench -- redis`): `serve` with the
 * journal and `serve --redis` (AOF everysec) each answer the same number of chosen-module events
 * for real assistant messages of the local platform (which also plays the model); printed per
 * answered event: serve's CPU, redis-server's CPU and the Redis commands executed (INFO
 * commandstats, the commands scripts run included). Goal (issue 47): ≤ 40 Redis commands per
 * answered event.
 */
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {Redis} from 'ioredis';
import {Pool} from 'undici';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import type {TestRedis} from '../support/redis.js';
import {defined} from '../support/defined.js';
import {cpuMs, fmt, secret, startServe} from './receiver-harness.js';

export const commandsGoal = 40;

/** `builtIn`: when the built-in answer stopped streaming (serve's final write sets it again). */
type Target = {chatId: string; messageId: string; builtIn: string};

/** Real assistant messages to answer, made while no module is registered; their built-in answers written. */
async function targetsOn(platform: LocalPlatform, count: number): Promise<Target[]> {
	const client = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, userId: platform.userId, companyId: platform.companyId});
	try {
		const targets = await Promise.all(Array.from({length: count}, async (_, index): Promise<Target> => {
			const chat = await client.createChat({title: `Bench answer ${index}`, assistantId: platform.assistantId});
			await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Hello?'});
			const history = await client.getChatMessages(chat.id);
			const messageId = defined(defined(history.messages.find(message => message.role === 'ASSISTANT'), 'the assistant message').id, 'its id');
			for (let attempt = 0; attempt < 500 && !platform.message(messageId)?.stoppedStreamingAt; attempt++) {
				await sleep(10);
			}

			return {chatId: chat.id, messageId, builtIn: platform.message(messageId)?.stoppedStreamingAt ?? ''};
		}));
		return targets;
	} finally {
		await client.close();
	}
}

/** The calls of each command Redis ran so far (INFO commandstats, the commands scripts ran included). */
async function redisCommands(redis: Redis): Promise<Map<string, number>> {
	const info = await redis.info('commandstats');
	return new Map([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map(match => [match[1] ?? '', Number(match[2])]));
}

/** The calls of each command between two readings, most first, and their total (the INFO call itself left out). */
function commandsBetween(before: Map<string, number>, after: Map<string, number>): {commands: number; scripts: number; byName: Array<[string, number]>} {
	const byName = [...after].map(([name, calls]): [string, number] => [name, calls - (before.get(name) ?? 0) - (name === 'info' ? 1 : 0)])
		.filter(([, calls]) => calls > 0)
		.sort((a, b) => b[1] - a[1]);
	const sum = (list: typeof byName) => list.reduce((total, [, calls]) => total + calls, 0);
	return {commands: sum(byName), scripts: sum(byName.filter(([name]) => name === 'eval' || name === 'evalsha')), byName};
}

/** Waits (up to a minute) until the default queue of the Redis at `server` has no job waiting or running. */
export async function drained(server: TestRedis): Promise<void> {
	const client = new Redis(server.url);
	try {
		const deadline = Date.now() + 60_000;
		while (Date.now() < deadline) {
			const [waiting, active] = await Promise.all([client.llen('platform-tui:events:wait'), client.llen('platform-tui:events:active')]);
			if (waiting + active === 0) {
				return;
			}

			await sleep(20);
		}
	} finally {
		client.disconnect();
	}
}

type Cost = {serveCpuMs: number; redisCpuMs?: number; commands?: number; scripts?: number; byName?: Array<[string, number]>; answered: number};

/** Sends a chosen-module event for each target to `url` (16 at once), then waits until every one is answered. */
async function answerAll(platform: LocalPlatform, url: string, targets: readonly Target[]): Promise<number> {
	const pool = new Pool(new URL(url).origin, {connections: 16});
	try {
		await Promise.all(targets.map(async target => {
			const event = buildTestEvent('external-module-chosen', {chatId: target.chatId, assistantMessageId: target.messageId, text: 'What does the lighthouse keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			const delivery = signDelivery(event, secret);
			const response = await pool.request({path: '/webhook', method: 'POST', headers: delivery.headers, body: delivery.body});
			await response.body.text();
		}));
	} finally {
		await pool.close();
	}

	const answered = () => targets.filter(target => {
		const message = platform.message(target.messageId);
		return message?.stoppedStreamingAt && message.stoppedStreamingAt !== target.builtIn;
	}).length;
	const deadline = Date.now() + 120_000;
	while (answered() < targets.length && Date.now() < deadline) {
		await sleep(20);
	}

	return answered();
}

async function measure(platform: LocalPlatform, configDir: string, name: string, targets: readonly Target[], redis?: TestRedis): Promise<Cost> {
	const extra = redis ? ['--redis', redis.url] : ['--data-dir', path.join(configDir, `data-${name}`)];
	const serve = await startServe(platform, configDir, path.join(configDir, `answer-${name}.log`), [], [...extra, '--concurrency', '8']);
	const client = redis ? new Redis(redis.url) : undefined;
	try {
		if (redis) {
			// Events an earlier part left in the queue would be counted here.
			await drained(redis);
		}

		const serveBefore = cpuMs(serve.pid) ?? 0;
		const redisBefore = cpuMs(redis?.process?.pid);
		const commandsBefore = client ? await redisCommands(client) : undefined;
		const answered = await answerAll(platform, serve.url, targets);
		const commandsAfter = client ? await redisCommands(client) : undefined;
		const redisAfter = cpuMs(redis?.process?.pid);
		return {
			serveCpuMs: (cpuMs(serve.pid) ?? 0) - serveBefore,
			...(redisBefore === undefined || redisAfter === undefined ? {} : {redisCpuMs: redisAfter - redisBefore}),
			...(commandsBefore === undefined || commandsAfter === undefined ? {} : commandsBetween(commandsBefore, commandsAfter)),
			answered,
		};
	} finally {
		client?.disconnect();
		await serve.stop('SIGTERM');
	}
}

/** Prints the cost per answered event of the journal and of Redis; false when the commands goal is not met. */
export async function answerCost(platform: LocalPlatform, configDir: string, redis: TestRedis, events = 200): Promise<boolean> {
	console.log(`\nCost per answered chosen-module event: ${String(events)} events, 16 deliveries at once, serve --concurrency 8`);
	const journal = await measure(platform, configDir, 'journal', await targetsOn(platform, events));
	const onRedis = await measure(platform, configDir, 'redis', await targetsOn(platform, events), redis);
	let met = true;
	for (const [name, cost] of [['journal', journal], ['redis everysec', onRedis]] as const) {
		const per = (value: number) => fmt(value / Math.max(1, cost.answered), 2);
		const redisPart = cost.redisCpuMs === undefined ? '' : `   redis-server CPU ${per(cost.redisCpuMs)} ms`;
		const scripts = cost.scripts === undefined ? '' : `, ${per(cost.scripts)} of them scripts`;
		const commands = cost.commands === undefined ? '' : `   ${per(cost.commands)} Redis commands${scripts} (goal ≤ ${String(commandsGoal)}: ${cost.commands / Math.max(1, cost.answered) <= commandsGoal ? 'MET' : 'NOT MET'})`;
		if (cost.commands !== undefined && cost.commands / Math.max(1, cost.answered) > commandsGoal) {
			met = false;
		}

		console.log(`  ${name.padEnd(16)} answered ${String(cost.answered)}/${String(events)}   serve CPU ${per(cost.serveCpuMs)} ms${redisPart}${commands}`);
		if (cost.byName !== undefined) {
			console.log(`    by command, per answered event: ${cost.byName.map(([command, calls]) => `${command} ${per(calls)}`).join(', ')}`);
		}
	}

	return met;
}
