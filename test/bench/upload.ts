/**
 * Upload benchmark (`npm run bench`, or `node --import tsx test/bench/upload.ts`).
 *
 * 1. 200 files × 256 KiB uploaded by the workflow to the local platform running in another
 *    process, with `--concurrency 1` and with the default (`defaultConcurrency`), alternating;
 *    printed side by side with their ratio. Once on bare loopback (where both processes compete
 *    for the same CPUs, so overlap gains little) and once with 20 ms added to every request by
 *    the platform (`latencyMs`), a stand-in for a real network, where overlap pays.
 * 2. Side by side (issue 13.11): 60 files × 64 KiB with 20 ms latency, a sequential client in the
 *    Python SDK's style against `platform-tui upload` — the built CLI in its own process, timed
 *    from spawn to exit (start-up is part of what a user waits for), and the in-process workflow.
 * 3. Peak RSS of the built CLI (`platform-tui upload --json`, its own process) while it uploads
 *    one 1 GiB file, next to the same CLI uploading a 1 KiB file. Goal: under 150 MiB.
 *
 * The platform runs in a child process (this file with the argument `platform`), so neither
 * its CPU nor its memory is counted against the uploader. Files live in temporary directories
 * that are removed at the end.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {open, readFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {PlatformClient} from '../../source/platform/client.js';
import {collectOutput} from '../support/cli.js';
import {runUpload, scanFolder, type UploadEvent} from '../../source/workflow/index.js';
import {defaultConcurrency} from '../../source/workflow/run-upload.js';

type Settings = {baseUrl: string; apiKey: string; appId: string; userId: string; companyId: string; assistantId: string};

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '../..');
const cliPath = path.join(root, 'dist/cli.js');
const mib = 1024 * 1024;

/** The value, or a failed test when it is missing (instead of a non-null assertion). */
function defined<T>(value: T | undefined | null): T {
	if (value === undefined || value === null) {
		throw new Error('expected a value, found none');
	}

	return value;
}

if (process.argv[2] === 'platform') {
	await servePlatform(Number(process.argv[3] ?? 0));
} else if (process.argv[2] === 'side-by-side') {
	const slow = await startPlatformProcess(20);
	try {
		process.exitCode = await sideBySide(slow.settings) ? 0 : 1;
	} finally {
		await slow.stop();
	}
} else if (process.argv[2] === 'rss') {
	const platform = await startPlatformProcess();
	try {
		process.exitCode = await peakRss(platform.settings) ? 0 : 1;
	} finally {
		await platform.stop();
	}
} else {
	await main();
}

/** Child mode: runs the local platform until stdin closes, printing its settings as one JSON line. */
async function servePlatform(latencyMs: number): Promise<void> {
	const {startLocalPlatform} = await import('../../source/local-platform/index.js');
	const platform = await startLocalPlatform({host: '127.0.0.1', port: 0, latencyMs, limits: {maxContents: 5000}});
	process.stdout.write(`${JSON.stringify(platform.settings())}\n`);
	await new Promise<void>(resolve => {
		process.stdin.on('end', resolve).on('close', resolve).resume();
		process.on('SIGTERM', resolve);
	});
	await platform.close();
	process.exit(0);
}

async function startPlatformProcess(latencyMs = 0): Promise<{settings: Settings; child: ChildProcess; stop: () => Promise<void>}> {
	const child = spawn(process.execPath, ['--import', 'tsx', here, 'platform', String(latencyMs)], {stdio: ['pipe', 'pipe', 'inherit'], cwd: root});
	const lines = createInterface({input: defined(child.stdout)});
	const first = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => {
			reject(new Error('the local platform did not start within 30 s'));
		}, 30_000);
		lines.once('line', line => {
			clearTimeout(timer);
			resolve(line);
		});
		child.once('exit', code => {
			clearTimeout(timer);
			reject(new Error(`the local platform exited with ${String(code)}`));
		});
	});
	const settings = JSON.parse(first) as Settings;
	return {
		settings,
		child,
		async stop() {
			const exited = new Promise(resolve => {
				child.once('exit', resolve);
			});
			defined(child.stdin).end();
			await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
		},
	};
}

function formatMiB(bytes: number): string {
	return `${(bytes / mib).toFixed(1)} MiB`;
}

type Timing = {uploadMs: number; totalMs: number; bytes: number};

async function timeWorkflow(settings: Settings, folder: string, concurrency: number): Promise<Timing> {
	const client = new PlatformClient({...settings});
	let upload: Extract<UploadEvent, {type: 'upload-complete'}> | undefined;
	const started = performance.now();
	try {
		await runUpload({
			client,
			folder,
			prompt: 'What is in these files?',
			assistantId: settings.assistantId,
			concurrency,
			pollIntervalMs: 100,
			title: `bench concurrency ${concurrency}`,
		}, event => {
			if (event.type === 'upload-complete') {
				upload = event;
			}
		});
	} finally {
		await client.close();
	}

	if (!upload) {
		throw new Error('the workflow reported no upload-complete event');
	}

	return {uploadMs: upload.durationMs, totalMs: performance.now() - started, bytes: upload.bytes};
}

/**
 * The whole workflow written plainly the way the real Python SDK is used: sequential upserts,
 * PUTs and finalizes, then each file's ingestion wait, then the message and its completion, with
 * the spec's 1.0 s poll interval.
 */
async function sequentialClient(settings: Settings, folder: string): Promise<number> {
	const client = new PlatformClient({...settings});
	const started = performance.now();
	try {
		const chat = await client.createChat({title: 'bench sequential', assistantId: settings.assistantId});
		const ids: string[] = [];
		for (const file of (await scanFolder(folder)).files) {
			const input = {key: file.name, title: file.name, mimeType: file.mimeType};
			const content = await client.upsertContent({input, chatId: chat.id});
			await client.putBlob(content.writeUrl ?? '', {filePath: file.path, contentType: file.mimeType, size: file.size});
			await client.upsertContent({input: {...input, byteSize: file.size}, chatId: chat.id, fileUrl: content.readUrl ?? ''});
			ids.push(content.id);
		}

		for (const id of ids) {
			for (;;) {
				const [record] = await client.searchContent({where: {id: {equals: id}}, chatId: chat.id, includeFailedContent: true});
				if (record?.ingestionState === 'FINISHED') {
					break;
				}

				await sleep(1000);
			}
		}

		const sent = await client.createSpaceMessage({assistantId: settings.assistantId, chatId: chat.id, text: 'What is in these files?'});
		for (;;) {
			const latest = await client.getLatestMessage(chat.id);
			if (latest.id !== sent.id && latest.stoppedStreamingAt) {
				break;
			}

			await sleep(1000);
		}

		await client.getChatMessages(chat.id);
	} finally {
		await client.close();
	}

	return performance.now() - started;
}

/** The environment a child CLI needs to reach the platform, with config and data dirs of its own. */
function cliEnv(settings: Settings): {env: NodeJS.ProcessEnv; cleanup: () => void} {
	const home = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-config-'));
	return {
		env: {
			...process.env,
			PLATFORM_BASE_URL: settings.baseUrl,
			PLATFORM_API_KEY: settings.apiKey,
			PLATFORM_APP_ID: settings.appId,
			PLATFORM_USER_ID: settings.userId,
			PLATFORM_COMPANY_ID: settings.companyId,
			PLATFORM_ASSISTANT_ID: settings.assistantId,
			PLATFORM_TUI_CONFIG_DIR: path.join(home, 'config'),
			PLATFORM_TUI_DATA_DIR: path.join(home, 'data'),
			CI: 'true',
		},
		cleanup() {
			rmSync(home, {recursive: true, force: true});
		},
	};
}

/** "type [finished/total] at s" for the events that mark the phases of a run. */
function phaseMark(event: Record<string, unknown>, ms: number): string | undefined {
	// A list inside the function: the file's top-level await runs before later module constants exist.
	const type = String(event.type);
	if (!['chat-created', 'upload-complete', 'ingestion-round', 'message-sent', 'reply-complete', 'result'].includes(type)) {
		return undefined;
	}

	const round = type === 'ingestion-round' ? ` ${String(event.finished)}/${String(event.total)}` : '';
	return `${type}${round} ${(ms / 1000).toFixed(2)} s`;
}

type Run = {ms: number; phases: string};

/** `platform-tui upload --json` (built CLI), timed from spawn to exit, with the default settings. */
async function timeCli(settings: Settings, folder: string): Promise<Run> {
	const {env, cleanup} = cliEnv(settings);
	const marks: string[] = [];
	const started = performance.now();
	try {
		const child = spawn(process.execPath, [cliPath, 'upload', folder, 'What is in these files?', '--json', '--title', 'bench side by side (CLI)'], {env, stdio: ['ignore', 'pipe', 'pipe']});
		let stderr = '';
		child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
			stderr += chunk;
		});
		createInterface({input: child.stdout}).on('line', line => {
			const mark = phaseMark(JSON.parse(line) as Record<string, unknown>, performance.now() - started);
			if (mark) {
				marks.push(mark);
			}
		});
		const code = await new Promise<number | null>(resolve => {
			child.on('close', resolve);
		});
		if (code !== 0) {
			throw new Error(`platform-tui upload exited with ${String(code)}: ${stderr.trim()}`);
		}

		return {ms: performance.now() - started, phases: marks.join(', ')};
	} finally {
		cleanup();
	}
}

/** The same workflow in this process (no start-up, modules already loaded). */
async function timeInProcess(settings: Settings, folder: string): Promise<Run> {
	const client = new PlatformClient({...settings});
	const marks: string[] = [];
	const started = performance.now();
	try {
		await runUpload({client, folder, prompt: 'What is in these files?', assistantId: settings.assistantId, title: 'bench side by side'}, event => {
			const mark = phaseMark(event, performance.now() - started);
			if (mark) {
				marks.push(mark);
			}
		});
	} finally {
		await client.close();
	}

	return {ms: performance.now() - started, phases: marks.join(', ')};
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return defined(sorted[Math.floor(sorted.length / 2)]);
}

/**
 * Goal (issue 13.11): `platform-tui upload` takes at most a third of the sequential client's time,
 * 60 × 64 KiB, 20 ms latency. The goal is judged on the built CLI (what a user runs and waits
 * for, process start-up included); the in-process workflow is shown next to it.
 */
async function sideBySide(settings: Settings): Promise<boolean> {
	const rounds = 3;
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-side-'));
	try {
		for (let index = 0; index < 60; index++) {
			writeFileSync(path.join(folder, `doc-${String(index).padStart(2, '0')}.txt`), randomBytes(48 * 1024).toString('base64'));
		}

		const useCli = existsSync(cliPath);
		const runs: Array<{sequential: number; cli?: Run; inProcess: Run}> = [];
		for (let round = 0; round < rounds; round++) {
			const sequential = await sequentialClient(settings, folder);
			const cli = useCli ? await timeCli(settings, folder) : undefined;
			const inProcess = await timeInProcess(settings, folder);
			runs.push({sequential, ...(cli ? {cli} : {}), inProcess});
		}

		const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
		console.log(`whole workflow, 60 files × 64 KiB, 20 ms added to every request, poll interval 1.0 s, ${rounds} rounds (sequential, CLI, in-process in turn):`);
		for (const [index, run] of runs.entries()) {
			const cli = run.cli ? `built CLI ${seconds(run.cli.ms)} (${(run.sequential / run.cli.ms).toFixed(2)}×), ` : '';
			console.log(`  round ${index + 1}: sequential client ${seconds(run.sequential)}, ${cli}in-process workflow ${seconds(run.inProcess.ms)} (${(run.sequential / run.inProcess.ms).toFixed(2)}×)`);
		}

		const sequential = median(runs.map(run => run.sequential));
		const inProcess = median(runs.map(run => run.inProcess.ms));
		const cliRuns = runs.flatMap(run => (run.cli ? [run.cli] : []));
		console.log(`  sequential client (Python SDK style)     median ${seconds(sequential)}`);
		console.log(`  platform-tui upload, in-process workflow median ${seconds(inProcess)}, ratio ${(sequential / inProcess).toFixed(2)}×`);
		if (cliRuns.length === 0) {
			console.log(`  built CLI: skipped, ${cliPath} is missing (run \`npm run build\` first); the goal is judged on the in-process figure`);
			const met = inProcess * 3 <= sequential;
			console.log(`  goal ≥ 3×: ${met ? 'MET' : 'NOT MET'}`);
			return met;
		}

		const cli = median(cliRuns.map(run => run.ms));
		const met = cli * 3 <= sequential;
		console.log(`  platform-tui upload, built CLI --json     median ${seconds(cli)}, ratio ${(sequential / cli).toFixed(2)}× (goal ≥ 3×: ${met ? 'MET' : 'NOT MET'})`);
		console.log(`  CLI phases (median run): ${cliRuns.find(run => run.ms === cli)?.phases ?? ''}`);
		return met;
	} finally {
		rmSync(folder, {recursive: true, force: true});
	}
}

async function throughput(settings: Settings, label: string, rounds: number): Promise<void> {
	const count = 200;
	const size = 256 * 1024;
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-files-'));
	try {
		for (let index = 0; index < count; index++) {
			writeFileSync(path.join(folder, `file-${String(index).padStart(3, '0')}.bin`), randomBytes(size));
		}

		// Warm up both sides (JIT, connections) with a small run.
		const warm = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-warm-'));
		try {
			for (let index = 0; index < 8; index++) {
				writeFileSync(path.join(warm, `warm-${index}.bin`), randomBytes(size));
			}

			await timeWorkflow(settings, warm, defaultConcurrency);
		} finally {
			rmSync(warm, {recursive: true, force: true});
		}

		const results: Record<number, Timing[]> = {1: [], [defaultConcurrency]: []};
		for (const concurrency of Array.from({length: rounds}, () => [1, defaultConcurrency]).flat()) {
			defined(results[concurrency]).push(await timeWorkflow(settings, folder, concurrency));
		}

		const best = (concurrency: number): Timing => defined(results[concurrency]).reduce((a, b) => (a.uploadMs <= b.uploadMs ? a : b));
		const one = best(1);
		const many = best(defaultConcurrency);
		console.log(`upload of ${count} files × ${size / 1024} KiB (${formatMiB(count * size)}) to the local platform in another process, ${label}, best of ${rounds} run${rounds === 1 ? '' : 's'} each:`);
		for (const [label, timing] of [['--concurrency 1', one], [`--concurrency ${defaultConcurrency} (default)`, many]] as const) {
			console.log(`  ${label.padEnd(26)} upload phase ${(timing.uploadMs / 1000).toFixed(2)} s (${formatMiB(timing.bytes / (timing.uploadMs / 1000))}/s), whole workflow ${(timing.totalMs / 1000).toFixed(2)} s`);
		}

		console.log(`  ratio: --concurrency 1 takes ${(one.uploadMs / many.uploadMs).toFixed(2)}× the time of the default (upload phase)`);
	} finally {
		rmSync(folder, {recursive: true, force: true});
	}
}

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

async function peakRss(settings: Settings): Promise<boolean> {
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

async function main(): Promise<void> {
	let ok: boolean;
	const platform = await startPlatformProcess();
	try {
		await throughput(platform.settings, 'bare loopback', 2);
		ok = await peakRss(platform.settings);
	} finally {
		await platform.stop();
	}

	const slow = await startPlatformProcess(20);
	try {
		ok = await sideBySide(slow.settings) && ok;
		await throughput(slow.settings, '20 ms added to every request', 1);
	} finally {
		await slow.stop();
	}

	process.exitCode = ok ? 0 : 1;
}
