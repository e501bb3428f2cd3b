/**
 * Sync side by side (issue 22): `platform-tui upload --chat` of 60 files × 64 KiB into an empty
 * chat (the first run uploads everything), then the same command again with nothing changed (the
 * second run only checks: one content search per file, then the prompt). Built CLI, timed from
 * spawn to exit, 20 ms added to every request. Goal: the second run takes ≤ 0.2× the first.
 * Run alone with `node --import tsx test/bench/upload.ts sync`.
 */
import {spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PlatformClient} from '../../source/platform/client.js';
import {cliEnv, cliPath, median, type Settings} from './upload-support.js';

type Run = {ms: number; phases: Map<string, number>};

/** Runs the CLI once; the time of each NDJSON event's first arrival is kept as a phase. */
async function timeCli(env: NodeJS.ProcessEnv, folder: string, chatId: string): Promise<Run> {
	const started = performance.now();
	const child = spawn(process.execPath, [cliPath, 'upload', folder, 'What is in these files?', '--chat', chatId, '--json'], {env, stdio: ['ignore', 'pipe', 'pipe']});
	const phases = new Map<string, number>();
	let stdout = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		stdout += chunk;
		const lines = stdout.split('\n');
		stdout = lines.pop() ?? '';
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
		throw new Error(`platform-tui upload --chat exited with ${String(code)}: ${stderr.trim()}`);
	}

	return {ms: performance.now() - started, phases};
}

/** Where a run's time went: start-up, the checks before the prompt, and the reply's wait. */
function phaseLine(run: Run): string {
	const at = (type: string) => run.phases.get(type);
	const span = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? '?' : `${((to - from) / 1000).toFixed(2)} s`);
	return `start-up to the folder listed ${span(0, at('files-listed'))}, then to the prompt sent ${span(at('files-listed'), at('message-sent'))}, the reply's wait ${span(at('message-sent'), at('reply-complete'))}, exit ${span(at('reply-complete'), run.ms)}`;
}

export async function syncSideBySide(settings: Settings): Promise<boolean> {
	if (!existsSync(cliPath)) {
		console.log(`sync side by side: skipped, ${cliPath} is missing (run \`npm run build\` first)`);
		return false;
	}

	const rounds = 3;
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-sync-'));
	const {env, cleanup} = cliEnv(settings);
	const client = new PlatformClient({...settings});
	try {
		for (let index = 0; index < 60; index++) {
			writeFileSync(path.join(folder, `doc-${String(index).padStart(2, '0')}.bin`), randomBytes(64 * 1024));
		}

		const runs: Array<{first: Run; second: Run}> = [];
		for (let round = 0; round < rounds; round++) {
			// A fresh chat each round, so every first run starts from an empty manifest.
			const chat = await client.createChat({title: `bench sync ${round + 1}`, assistantId: settings.assistantId});
			const first = await timeCli(env, folder, chat.id);
			const second = await timeCli(env, folder, chat.id);
			runs.push({first, second});
		}

		const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
		console.log(`upload --chat, 60 files × 64 KiB, 20 ms added to every request, built CLI from spawn to exit, ${rounds} rounds (first run into an empty chat, then the same command with nothing changed):`);
		for (const [index, run] of runs.entries()) {
			console.log(`  round ${index + 1}: first ${seconds(run.first.ms)}, second ${seconds(run.second.ms)} (${(run.second.ms / run.first.ms).toFixed(2)}×)`);
			console.log(`    first:  ${phaseLine(run.first)}`);
			console.log(`    second: ${phaseLine(run.second)}`);
		}

		const first = median(runs.map(run => run.first.ms));
		const second = median(runs.map(run => run.second.ms));
		const replyWait = median(runs.map(run => (run.second.phases.get('reply-complete') ?? 0) - (run.second.phases.get('message-sent') ?? 0)));
		const ratio = second / first;
		const met = ratio <= 0.2;
		console.log(`  first run median ${seconds(first)}, second run (nothing changed) median ${seconds(second)}: ${ratio.toFixed(2)}× (goal ≤ 0.2×: ${met ? 'MET' : 'NOT MET'})`);
		console.log(`  of the second run, the reply's wait (the prompt is asked again, the reply polled every 1.0 s as spec §4.3 says) takes ${seconds(replyWait)}; without it the second run is ${((second - replyWait) / first).toFixed(2)}× the first`);
		return met;
	} finally {
		await client.close();
		cleanup();
		rmSync(folder, {recursive: true, force: true});
	}
}
