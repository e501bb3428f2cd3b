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

async function timeCli(env: NodeJS.ProcessEnv, folder: string, chatId: string): Promise<number> {
	const started = performance.now();
	const child = spawn(process.execPath, [cliPath, 'upload', folder, 'What is in these files?', '--chat', chatId, '--json'], {env, stdio: ['ignore', 'ignore', 'pipe']});
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

	return performance.now() - started;
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

		const runs: Array<{first: number; second: number}> = [];
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
			console.log(`  round ${index + 1}: first ${seconds(run.first)}, second ${seconds(run.second)} (${(run.second / run.first).toFixed(2)}×)`);
		}

		const first = median(runs.map(run => run.first));
		const second = median(runs.map(run => run.second));
		const ratio = second / first;
		const met = ratio <= 0.2;
		console.log(`  first run median ${seconds(first)}, second run (nothing changed) median ${seconds(second)}: ${ratio.toFixed(2)}× (goal ≤ 0.2×: ${met ? 'MET' : 'NOT MET'})`);
		return met;
	} finally {
		await client.close();
		cleanup();
		rmSync(folder, {recursive: true, force: true});
	}
}
