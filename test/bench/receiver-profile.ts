/**
 * One `serve` (journal on) under a profiler, the harness the receiver's hot path is measured with:
 * `npm run build && node --import tsx test/bench/receiver-profile.ts [requests]`.
 *
 * Sends 3000 warm-up deliveries, then `requests` (default 20 000) over 32 connections, and prints
 * the CPU time per request of each of serve's threads (from /proc: the main thread, libuv's
 * workers, lmdb's writer, V8's GC and compiler threads), with anonymous and file-backed RSS.
 * With `PROFILE_CPU=1` serve runs under `--cpu-prof` and the profile's heaviest functions (self
 * time, and per package) are printed; the profile is kept in the printed directory. With
 * `PROFILE_REDIS=1` serve runs with `--redis` on a throwaway redis-server (AOF, everysec). With
 * `PROFILE_CLI=<dist/cli.js>` another build's serve is the one measured.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {startLocalPlatform} from '../../source/local-platform/index.js';
import {startRedis} from '../support/redis.js';
import {deliveries, fmt, load, rssMiB, startServe, threadCpuMs} from './receiver-harness.js';

type ProfileNode = {id: number; hitCount?: number; callFrame: {functionName: string; url: string; lineNumber: number}};
type Profile = {nodes: ProfileNode[]; samples: number[]; startTime: number; endTime: number};

function summarize(file: string, top = 30): void {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
	const total = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
	const byFunction = new Map<string, number>();
	const byPackage = new Map<string, number>();
	for (const node of profile.nodes) {
		const hits = node.hitCount ?? 0;
		const {functionName, url, lineNumber} = node.callFrame;
		const where = url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
		const name = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
		byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
		const group = url === '' ? functionName : (url.startsWith('node:') ? url : where.split('/').slice(0, where.startsWith('@') ? 2 : 1).join('/'));
		byPackage.set(group, (byPackage.get(group) ?? 0) + hits);
	}

	const show = (map: Map<string, number>, count: number) => {
		for (const [name, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
			console.log(`  ${fmt((hits / total) * 100).padStart(5)} %  ${name}`);
		}
	};

	console.log(`cpu profile ${file}: ${total} samples`);
	console.log('by package / group (self time):');
	show(byPackage, 15);
	console.log('by function (self time):');
	show(byFunction, top);
}

const requests = Number(process.argv[2] ?? 20_000);
const cpuProfile = process.env.PROFILE_CPU === '1';
const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-profile-'));
const profileDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-cpuprofile-'));
const platform = await startLocalPlatform();
const redis = process.env.PROFILE_REDIS === '1' ? await startRedis({forceLocal: true, appendonly: true, args: ['--appendfsync', 'everysec']}) : undefined;
try {
	const serve = await startServe(platform, configDir, path.join(configDir, 'serve.log'), cpuProfile ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`] : [], redis ? ['--redis', redis.url] : [], process.env.PROFILE_CLI);
	await load(serve.url, deliveries(3000));
	const items = deliveries(requests);
	const before = threadCpuMs(serve.pid);
	const result = await load(serve.url, items);
	const after = threadCpuMs(serve.pid);
	const memory = rssMiB(serve.pid);
	await serve.stop('SIGTERM');
	console.log(`serve: ${fmt(result.perSecond, 0)} req/s  p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms  non-200 ${result.non200}  RssAnon ${fmt(memory.anon)} MiB  RssFile ${fmt(memory.file)} MiB`);
	let sum = 0;
	for (const [name, ms] of [...after].sort((a, b) => b[1] - a[1])) {
		const used = ms - (before.get(name) ?? 0);
		sum += used;
		if (used > 0) {
			console.log(`  ${name.padEnd(16)} ${fmt((used * 1000) / requests).padStart(6)} µs CPU/request`);
		}
	}

	console.log(`  ${'all threads'.padEnd(16)} ${fmt((sum * 1000) / requests).padStart(6)} µs CPU/request`);
	if (cpuProfile) {
		for (const file of readdirSync(profileDir)) {
			summarize(path.join(profileDir, file));
		}
	}
} finally {
	await redis?.stop();
	await platform.close();
	rmSync(configDir, {recursive: true, force: true});
}
