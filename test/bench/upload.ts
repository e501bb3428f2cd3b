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
 * 4. Sync (issue 34): a plain upload of 300 files × 16 KiB, then the `--chat` command it printed
 *    with nothing changed, timed from spawn to the prompt sent; goal: the rerun ≤ 0.2× the first.
 *    And the rerun's peak RSS with a 1 GiB file in the folder; goal ≤ 100 MiB.
 *
 * Parts 2, 3 and 4 live in upload-side-by-side.ts, upload-rss.ts and upload-sync.ts; `side-by-side`,
 * `rss` or `sync` as the argument runs one alone. The platform runs in a child process (upload-platform.ts), so neither
 * its CPU nor its memory is counted against the uploader. Files live in temporary directories
 * that are removed at the end.
 */
import {randomBytes} from 'node:crypto';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PlatformClient} from '../../source/platform/client.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import type {UploadEvent} from '../../source/workflow/events.js';
import {defaultConcurrency} from '../../source/workflow/run-upload.js';
import {peakRss} from './upload-rss.js';
import {sideBySide} from './upload-side-by-side.js';
import {syncSideBySide} from './upload-sync.js';
import {defined} from '../support/defined.js';
import {formatMiB, startPlatformProcess, type Settings} from './upload-support.js';

if (process.argv[2] === 'side-by-side') {
	const slow = await startPlatformProcess(20);
	try {
		process.exitCode = await sideBySide(slow.settings) ? 0 : 1;
	} finally {
		await slow.stop();
	}
} else if (process.argv[2] === 'sync') {
	const slow = await startPlatformProcess(20);
	try {
		process.exitCode = await syncSideBySide(slow.settings) ? 0 : 1;
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
		ok = await syncSideBySide(slow.settings) && ok;
		await throughput(slow.settings, '20 ms added to every request', 1);
	} finally {
		await slow.stop();
	}

	process.exitCode = ok ? 0 : 1;
}
