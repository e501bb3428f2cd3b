/**
 * Sync side by side (issue 34): a plain `platform-tui upload` of 300 files × 16 KiB into a new
 * chat, then the command it printed (`… --chat chat_…`) with nothing changed. Built CLI, 20 ms
 * added to every request. Timed from spawn to the prompt being sent (the `message-sent` event;
 * the reply's wait after it is the platform's, spec §4.3). Goal: the rerun's span ≤ 0.2× the
 * first run's. Then the peak RSS of that rerun with a 1 GiB file (sparse, made by truncate) in the
 * folder, hashed by the streaming SHA-256; goal ≤ 100 MiB. The local platform cannot ingest a
 * 1 GiB binary, so the bench writes the big file's manifest entry itself (its real SHA-256 and a
 * FINISHED content of the chat), as an earlier upload of it would have.
 * Run alone with `node --import tsx test/bench/upload.ts sync`.
 */
import {spawn} from 'node:child_process';
import {createHash, randomBytes} from 'node:crypto';
import {createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {manifestPath} from '../../source/workflow/manifest.js';
import {cliEnv, cliPath, formatMiB, median, mib, type Settings} from './upload-support.js';

const fileCount = 300;
const fileBytes = 16 * 1024;
const prompt = 'What is in these files?';

type Run = {ms: number; phases: Map<string, number>; stdout: string; peakRssBytes?: number};

/** Runs the CLI once (under GNU time when `rss`); the time of each NDJSON event's first arrival is kept as a phase. */
async function timeCli(env: NodeJS.ProcessEnv, args: string[], rss = false): Promise<Run> {
	const started = performance.now();
	const command = [cliPath, ...args, '--json', '--poll-interval', '0.2'];
	const child = rss
		? spawn('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M', process.execPath, ...command], {env, stdio: ['ignore', 'pipe', 'pipe']})
		: spawn(process.execPath, command, {env, stdio: ['ignore', 'pipe', 'pipe']});
	const phases = new Map<string, number>();
	let all = '';
	let pending = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		all += chunk;
		const lines = (pending + chunk).split('\n');
		pending = lines.pop() ?? '';
		for (const line of lines) {
			const type = /"type":"([^"]+)"/.exec(line)?.[1];
			if (type !== undefined && !phases.has(type)) {
				phases.set(type, performance.now() - started);
			}
		}
	});
	let stderr = '';
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		stderr += chunk;
	});
	const code = await new Promise<number | null>(resolve => {
		child.on('close', resolve);
	});
	if (code !== 0) {
		throw new Error(`platform-tui ${args.join(' ')} exited with ${String(code)}: ${stderr.trim()}`);
	}

	const peakKb = rss ? Number(/PEAK_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? Number.NaN) : undefined;
	return {ms: performance.now() - started, phases, stdout: all, ...(peakKb === undefined ? {} : {peakRssBytes: peakKb * 1024})};
}

const toPrompt = (run: Run): number => run.phases.get('message-sent') ?? Number.NaN;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function phaseLine(run: Run): string {
	const at = (type: string) => run.phases.get(type) ?? Number.NaN;
	return `start-up to the folder listed ${seconds(at('files-listed'))}, to the prompt sent ${seconds(toPrompt(run))}, the reply's wait ${seconds(at('reply-complete') - toPrompt(run))}, exit ${seconds(run.ms)}`;
}

function eventOf(run: Run, type: string): Record<string, unknown> {
	const line = run.stdout.split('\n').find(text => text.includes(`"type":"${type}"`));
	return line === undefined ? {} : JSON.parse(line) as Record<string, unknown>;
}

async function sha256Of(file: string): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of createReadStream(file)) {
		hash.update(chunk as Buffer);
	}

	return hash.digest('hex');
}

/** The rerun with a sparse 1 GiB file added (its manifest entry written as an earlier upload would have). */
async function rerunRss(env: NodeJS.ProcessEnv, settings: Settings, folder: string, chatId: string): Promise<Run> {
	const big = path.join(folder, 'big.bin');
	writeFileSync(big, '');
	truncateSync(big, 1024 * mib);
	const file = manifestPath(String(env.PLATFORM_TUI_DATA_DIR), settings.baseUrl, chatId);
	const manifest = JSON.parse(readFileSync(file, 'utf8')) as {files: Record<string, {contentId: string}>};
	const some = Object.values(manifest.files)[0]?.contentId ?? '';
	manifest.files['big.bin'] = {size: 1024 * mib, sha256: await sha256Of(big), contentId: some, ingestionState: 'FINISHED', uploadedAt: new Date().toISOString()} as never;
	writeFileSync(file, JSON.stringify(manifest));
	try {
		return await timeCli(env, ['upload', folder, prompt, '--chat', chatId], true);
	} finally {
		rmSync(big, {force: true});
	}
}

export async function syncSideBySide(settings: Settings): Promise<boolean> {
	if (!existsSync(cliPath)) {
		console.log(`sync side by side: skipped, ${cliPath} is missing (run \`npm run build\` first)`);
		return false;
	}

	const rounds = 3;
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-sync-'));
	const {env, cleanup} = cliEnv(settings);
	try {
		for (let index = 0; index < fileCount; index++) {
			writeFileSync(path.join(folder, `doc-${String(index).padStart(3, '0')}.bin`), randomBytes(fileBytes));
		}

		const runs: Array<{first: Run; second: Run; chatId: string}> = [];
		for (let round = 0; round < rounds; round++) {
			// A plain upload (a new chat each round), then the command it printed, with nothing changed.
			const first = await timeCli(env, ['upload', folder, prompt]);
			const created = eventOf(first, 'chat-created');
			const chatId = String(created.chatId);
			const resume = String(created.resume);
			if (!resume.includes(`--chat ${chatId}`)) {
				throw new Error(`the first run printed no command to continue it: ${resume}`);
			}

			const second = await timeCli(env, ['upload', folder, prompt, '--chat', chatId]);
			const planned = eventOf(second, 'sync-planned') as {upload?: unknown[]; replace?: unknown[]; unchanged?: unknown[]};
			if (planned.upload?.length !== 0 || planned.replace?.length !== 0 || planned.unchanged?.length !== fileCount) {
				throw new Error(`the rerun did not skip every file: ${JSON.stringify({upload: planned.upload?.length, replace: planned.replace?.length, unchanged: planned.unchanged?.length})}`);
			}

			runs.push({first, second, chatId});
		}

		console.log(`plain upload, then the printed --chat command with nothing changed: ${fileCount} files × ${fileBytes / 1024} KiB, 20 ms added to every request, built CLI, ${rounds} rounds; span = spawn to the prompt sent:`);
		for (const [index, run] of runs.entries()) {
			console.log(`  round ${index + 1}: first ${seconds(toPrompt(run.first))}, rerun ${seconds(toPrompt(run.second))} (${(toPrompt(run.second) / toPrompt(run.first)).toFixed(2)}×)`);
			console.log(`    first: ${phaseLine(run.first)}`);
			console.log(`    rerun: ${phaseLine(run.second)}`);
		}

		const first = median(runs.map(run => toPrompt(run.first)));
		const second = median(runs.map(run => toPrompt(run.second)));
		const ratio = second / first;
		const met = ratio <= 0.2;
		console.log(`  median to the prompt: first ${seconds(first)}, rerun ${seconds(second)}: ${ratio.toFixed(2)}× (goal ≤ 0.2×: ${met ? 'MET' : 'NOT MET'}); whole runs, exit included: first ${seconds(median(runs.map(run => run.first.ms)))}, rerun ${seconds(median(runs.map(run => run.second.ms)))}`);

		const last = runs.at(-1);
		const small = last ? await timeCli(env, ['upload', folder, prompt, '--chat', last.chatId], true) : undefined;
		const big = last ? await rerunRss(env, settings, folder, last.chatId) : undefined;
		const peak = big?.peakRssBytes ?? Number.NaN;
		const rssMet = peak <= 100 * mib;
		console.log(`  peak RSS of the rerun (GNU time %M): ${formatMiB(small?.peakRssBytes ?? Number.NaN)} with the ${fileCount} files alone; ${formatMiB(peak)} with a 1 GiB file (sparse) added (goal ≤ 100 MiB: ${rssMet ? 'MET' : 'NOT MET'}); to the prompt ${big ? seconds(toPrompt(big)) : '?'} (hashing 1 GiB included)`);
		return met && rssMet;
	} finally {
		cleanup();
		rmSync(folder, {recursive: true, force: true});
	}
}
