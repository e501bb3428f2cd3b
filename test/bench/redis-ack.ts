/**
 * Acknowledged events per second and p99 ack latency of `serve --redis` with AOF `appendfsync
 * everysec` and `always`, beside the journal backend, in the same run (`npm run bench -- redis`).
 * Each serve is first warmed with `requests` deliveries of its own (the first deliveries pay for
 * the compilers, the heap and the journal's first pages: unwarmed, the journal ran its first round
 * at a third of its later rate and a median of three counted it). Then each round sends the same
 * number of fresh signed deliveries (32 connections) to each serve, the order rotating; the
 * figures printed are the medians of the rounds. CPU per ack is serve's and (for Redis)
 * redis-server's CPU from the first delivery until the queue has no event left waiting or running
 * (a logged event is a job the worker finishes), per acknowledged event.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {startLocalPlatform} from '../../source/local-platform/index.js';
import {startRedis, type TestRedis} from '../support/redis.js';
import {defined} from '../support/defined.js';
import {cpuMs, deliveries, fmt, load, median, startServe, type Child} from './receiver-harness.js';
import {answerCost, drained} from './redis-answer.js';

const rounds = Number(process.argv[2] ?? 3);
const requests = Number(process.argv[3] ?? 4000);
const names = ['journal', 'redis everysec', 'redis always'] as const;
type Name = (typeof names)[number];

const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-redis-'));
const platform = await startLocalPlatform({});
const servers: TestRedis[] = [];
const serves = new Map<Name, Child>();
try {
	for (const fsync of ['everysec', 'always']) {
		servers.push(await startRedis({forceLocal: true, appendonly: true, args: ['--appendfsync', fsync]}));
	}

	serves.set('journal', await startServe(platform, configDir, path.join(configDir, 'journal.log')));
	serves.set('redis everysec', await startServe(platform, configDir, path.join(configDir, 'everysec.log'), [], ['--redis', servers[0]?.url ?? '']));
	serves.set('redis always', await startServe(platform, configDir, path.join(configDir, 'always.log'), [], ['--redis', servers[1]?.url ?? '']));
	const redisOf = new Map<Name, TestRedis | undefined>([['redis everysec', servers[0]], ['redis always', servers[1]]]);
	/** `requests` fresh deliveries to `name`, until its queue is drained. */
	const sendTo = async (name: Name) => {
		const result = await load(defined(serves.get(name), name).url, deliveries(requests));
		const redis = redisOf.get(name);
		if (redis !== undefined) {
			await drained(redis);
		}

		return result;
	};

	for (const name of names) {
		await sendTo(name);
	}

	const figures = new Map<Name, Array<{perSecond: number; p99: number; non200: number; cpuUsPerAck: number}>>(names.map(name => [name, []]));
	console.log(`\nAcknowledged events per second and p99 (ms): ${String(rounds)} rounds of ${String(requests)} fresh deliveries each, 32 connections, after as many to warm each`);
	for (let round = 0; round < rounds; round++) {
		const order = names.map((_, index) => names[(index + round) % names.length] ?? 'journal');
		for (const name of order) {
			const target = defined(serves.get(name), name);
			const cpu = () => (cpuMs(target.pid) ?? 0) + (cpuMs(redisOf.get(name)?.process?.pid) ?? 0);
			const before = cpu();
			const result = await sendTo(name);
			figures.get(name)?.push({perSecond: result.perSecond, p99: result.p99, non200: result.non200, cpuUsPerAck: ((cpu() - before) * 1000) / requests});
		}
	}

	const journal = median((figures.get('journal') ?? []).map(item => item.perSecond));
	const journalCpu = median((figures.get('journal') ?? []).map(item => item.cpuUsPerAck));
	console.log(`  (CPU per ack: serve, plus redis-server for Redis, until the queue is drained; goal for redis everysec: ≥ 0.8× the journal's acks/s)`);
	for (const name of names) {
		const list = figures.get(name) ?? [];
		const perSecond = median(list.map(item => item.perSecond));
		const p99 = median(list.map(item => item.p99));
		const cpuPerAck = median(list.map(item => item.cpuUsPerAck));
		const non200 = list.reduce((sum, item) => sum + item.non200, 0);
		console.log(`  ${name.padEnd(16)} ${fmt(perSecond, 0).padStart(7)} acked/s   p99 ${fmt(p99).padStart(6)} ms   ${fmt(perSecond / journal, 2)}× the journal   CPU ${fmt(cpuPerAck, 0).padStart(4)} µs/ack (${fmt(cpuPerAck / journalCpu, 2)}×)${non200 > 0 ? `   (${String(non200)} not 200)` : ''}`);
	}

	for (const serve of serves.values()) {
		await serve.stop();
	}

	serves.clear();
	if (!await answerCost(platform, configDir, defined(servers[0], 'the everysec Redis'))) {
		process.exitCode = 1;
	}
} finally {
	for (const serve of serves.values()) {
		await serve.stop();
	}

	for (const server of servers) {
		await server.stop();
	}

	await platform.close();
	rmSync(configDir, {recursive: true, force: true});
}
