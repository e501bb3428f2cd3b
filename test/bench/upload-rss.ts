/**
 * Peak RSS of the built CLI (`platform-tui upload --json`, its own process) while it uploads one
 * 1 GiB file, next to the same CLI uploading a 1 KiB file. Goals: under 150 MiB and at most 80 MiB.
 * Run alone with `node --import tsx test/bench/upload.ts rss`.
 */
import {spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {open, readFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {collectOutput} from '../support/cli.js';
import {cliEnv, cliPath, formatMiB, mib, type Settings} from './upload-support.js';

/** Writes `size` bytes of a repeated random block without holding the file in memory. */
async function writeLargeFile(filePath: string, size: number): Promise<void> {
	const block = randomBytes(8 * mib);
	const handle = await open(filePath, 'w');
	try {
		for (let written = 0; written < size; written += block.length) {
			await handle.write(block, 0, Math.min(block.length, size - written));
		}
	} finally {
		await handle.close();
	}
}

type Measured = {peakRssBytes: number; events: Array<Record<string, unknown>>; method: string};

/** Runs the built CLI and measures its peak RSS (GNU time when present, else VmHWM sampling). */
async function measureCli(settings: Settings, folder: string): Promise<Measured> {
	const {env, cleanup} = cliEnv(settings);
	const args = [cliPath, 'upload', folder, 'What is in this file?', '--json', '--poll-interval', '0.2'];
	const useTime = existsSync('/usr/bin/time');
	const child = useTime
		? spawn('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M', process.execPath, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
		: spawn(process.execPath, args, {env, stdio: ['ignore', 'pipe', 'pipe']});
	const output = collectOutput(child);
	let sampledKb = 0;
	const sampler = useTime ? undefined : setInterval(() => {
		void readFile(`/proc/${child.pid}/status`, 'utf8').then(status => {
			const match = /VmHWM:\s+(\d+) kB/.exec(status);
			sampledKb = Math.max(sampledKb, Number(match?.[1] ?? 0));
		}, () => undefined);
	}, 20);
	const code = await new Promise<number | null>(resolve => {
		child.on('close', resolve);
	});
	clearInterval(sampler);
	cleanup();
	if (code !== 0) {
		throw new Error(`platform-tui upload exited with ${String(code)}: ${output.stderr().trim()}`);
	}

	const peakKb = useTime ? Number(/PEAK_RSS_KB=(\d+)/.exec(output.stderr())?.[1] ?? Number.NaN) : sampledKb;
	const events = output.stdout().trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
	return {peakRssBytes: peakKb * 1024, events, method: useTime ? 'GNU time %M' : 'VmHWM sampled every 20 ms'};
}

export async function peakRss(settings: Settings): Promise<boolean> {
	if (!existsSync(cliPath)) {
		console.log(`peak RSS: skipped, ${cliPath} is missing (run \`npm run build\` first)`);
		return true;
	}

	const small = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-small-'));
	const large = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-large-'));
	try {
		writeFileSync(path.join(small, 'small.bin'), randomBytes(1024));
		const gib = 1024 * mib;
		await writeLargeFile(path.join(large, 'large.bin'), gib);
		const baseline = await measureCli(settings, small);
		const measured = await measureCli(settings, large);
		const upload = measured.events.find(event => event.type === 'upload-complete');
		const seconds = Number(upload?.durationMs ?? Number.NaN) / 1000;
		const ok = measured.peakRssBytes < 150 * mib;
		console.log(`peak RSS of \`platform-tui upload --json\` (built CLI, its own process; ${measured.method}):`);
		const smallOk = baseline.peakRssBytes <= 80 * mib;
		console.log(`  uploading 1 KiB: ${formatMiB(baseline.peakRssBytes)} (goal at most 80 MiB: ${smallOk ? 'MET' : 'NOT MET'})`);
		console.log(`  uploading 1 GiB: ${formatMiB(measured.peakRssBytes)} (goal under 150 MiB: ${ok ? 'MET' : 'NOT MET'}); the transfer took ${seconds.toFixed(2)} s (${formatMiB(gib / seconds)}/s)`);
		console.log(`  ratio 1 GiB / 1 KiB: ${(measured.peakRssBytes / baseline.peakRssBytes).toFixed(2)}×`);
		return ok && smallOk;
	} finally {
		rmSync(small, {recursive: true, force: true});
		rmSync(large, {recursive: true, force: true});
	}
}
