/**
 * Local platform benchmark (`npm run bench -- local`, issue 43.6): how light the stand-in stays
 * after a big upload. A folder with one 200 MB log file (request ids, users and words drawn
 * from a 200 000-word vocabulary, so the index would grow with every byte it took in) and 20
 * small ones:
 *
 * 1. Peak RSS of `platform-tui upload --local FOLDER … --json` (the platform in the same
 *    process). Goal: at most 512 MiB.
 * 2. A separate `platform-tui local`, the folder uploaded to it with `upload`, then `chat`
 *    questions in the upload's chat: a short one (goal: answered within 2 s), one of 1 000
 *    characters (goal: answered, exit 0, no apology) and one of 30 000 (goal: answered, or
 *    refused with exit 1 in one sentence naming the limit), and one just over the local platform's
 *    limit (`maxMessageChars`; goal: refused so). Then the `local` process's peak RSS
 *    (VmHWM). Goal: at most 512 MiB.
 *
 * Every process is the built CLI (`npm run build` first); files live in a temporary directory
 * that is removed at the end.
 */
import {spawn} from 'node:child_process';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {open, readFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {defaultLimits} from '../../source/local-platform/index.js';
import {collectOutput} from '../support/cli.js';
import {defined} from '../support/defined.js';
import {cliEnv, cliPath, formatMiB, mib, type Settings} from './upload-support.js';

const goalRssBytes = 512 * mib;
const goalChatMs = 2000;
const bigBytes = 200 * 1000 * 1000;
const apology = /sorry, something went wrong/i;

/** A seeded generator (mulberry32), so every run writes the same file. */
function generator(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6D_2B_79_F5) | 0;
		let value = Math.imul(state ^ (state >>> 15), 1 | state);
		value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
		return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
	};
}

/**
 * Writes `size` bytes of log lines (a time, a request id, a user, 8 to 20 words, a duration) in
 * paragraphs of 50 lines, 4 MB at a time: ids and numbers make the vocabulary grow with the text.
 */
async function writeLogFile(filePath: string, size: number): Promise<void> {
	const random = generator(43);
	const letters = 'abcdefghijklmnopqrstuvwxyz';
	const vocabulary = Array.from({length: 200_000}, () => Array.from({length: 3 + Math.floor(random() * 8)}, () => letters.charAt(Math.floor(random() * 26))).join(''));
	const pick = (): string => defined(vocabulary[Math.floor(random() * vocabulary.length)]);
	const handle = await open(filePath, 'w');
	try {
		let written = 0;
		let line = 0;
		while (written < size) {
			const parts: string[] = [];
			let length = 0;
			while (length < 4_000_000) {
				const at = new Date(Date.UTC(2026, 10, 1) + (line * 1037)).toISOString();
				const id = Math.floor(random() * 0xFF_FF_FF_FF_FF).toString(16).padStart(10, '0');
				const words = Array.from({length: 8 + Math.floor(random() * 12)}, pick).join(' ');
				const text = `${at} INFO req_${id} user=u${Math.floor(random() * 1_000_000)} ${words}. took ${Math.floor(random() * 1000)}ms\n${++line % 50 === 0 ? '\n' : ''}`;
				parts.push(text);
				length += text.length;
			}

			const block = Buffer.from(parts.join('').slice(0, size - written));
			await handle.write(block);
			written += block.length;
		}
	} finally {
		await handle.close();
	}
}

type Run = {code: number | null; stdout: string; stderr: string; ms: number; peakRssBytes: number};

/** Runs the built CLI to its end; its peak RSS through GNU time when present. */
async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
	const useTime = existsSync('/usr/bin/time');
	const started = performance.now();
	const child = useTime
		? spawn('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M', process.execPath, cliPath, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
		: spawn(process.execPath, [cliPath, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']});
	const output = collectOutput(child);
	const code = await new Promise<number | null>(resolve => {
		child.on('close', resolve);
	});
	const ms = performance.now() - started;
	const stderr = output.stderr();
	const peakKb = Number(/PEAK_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? Number.NaN);
	// GNU time's own lines (the figure, and "Command exited with non-zero status N") are not the CLI's.
	return {code, stdout: output.stdout(), stderr: stderr.replace(/PEAK_RSS_KB=\d+\n?/, '').replace(/^Command exited with non-zero status \d+\n?/m, ''), ms, peakRssBytes: peakKb * 1024};
}

function verdict(ok: boolean): string {
	return ok ? 'goal met' : 'goal NOT met';
}

function chatIdOf(run: Run): string {
	const result = run.stdout.trim().split('\n').map(line => JSON.parse(line) as {type?: string; chatIds?: string[]}).find(line => line.type === 'result');
	const chatId = result?.chatIds?.[0];
	if (chatId === undefined) {
		throw new Error(`the upload printed no chat id (exit ${String(run.code)}): ${run.stderr.trim()}`);
	}

	return chatId;
}

async function uploadLocal(folder: string): Promise<boolean> {
	const {env, cleanup} = cliEnv({baseUrl: '', apiKey: '', appId: '', userId: '', companyId: '', assistantId: ''});
	try {
		const run = await runCli(['upload', '--local', folder, 'What is in these files?', '--json', '--poll-interval', '0.2'], env);
		const ok = run.code === 0 && run.peakRssBytes <= goalRssBytes;
		console.log(`\`upload --local\` of ${formatMiB(bigBytes)} + 20 small files: exit ${String(run.code)} in ${(run.ms / 1000).toFixed(1)} s, peak RSS ${formatMiB(run.peakRssBytes)} (goal at most ${formatMiB(goalRssBytes)}: ${verdict(ok)})`);
		if (run.code !== 0) {
			console.log(`  ${run.stderr.trim().split('\n').at(-1) ?? ''}`);
		}

		return ok;
	} finally {
		cleanup();
	}
}

async function startLocal(env: NodeJS.ProcessEnv): Promise<{settings: Settings; pid: number; stop: () => Promise<void>}> {
	const child = spawn(process.execPath, [cliPath, 'local', '--port', '0', '--json'], {env, stdio: ['ignore', 'pipe', 'inherit']});
	const first = await new Promise<string>((resolve, reject) => {
		createInterface({input: child.stdout}).once('line', resolve);
		child.once('exit', code => {
			reject(new Error(`platform-tui local exited with ${String(code)}`));
		});
	});
	child.stdout.resume();
	return {
		settings: JSON.parse(first) as Settings,
		pid: defined(child.pid),
		async stop() {
			const exited = new Promise(resolve => {
				child.once('exit', resolve);
			});
			child.kill('SIGTERM');
			await exited;
		},
	};
}

async function peakOf(pid: number): Promise<number> {
	const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
	return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** One chat question: its exit, time and the gist of what it printed. */
async function ask(env: NodeJS.ProcessEnv, chatId: string, prompt: string): Promise<{run: Run; answered: boolean; refusal: string}> {
	const run = await runCli(['chat', chatId, prompt, '--poll-interval', '0.1'], env);
	const answered = run.code === 0 && run.stdout.trim() !== '' && !apology.test(run.stdout);
	const lines = run.stderr.trim().split('\n').filter(line => line.trim() !== '');
	return {run, answered, refusal: run.code === 1 && lines.length === 1 ? defined(lines[0]) : ''};
}

function prompt(length: number): string {
	return 'What do the files say about the battery, the warranty and the price of the device? '.repeat(Math.ceil(length / 80)).slice(0, length);
}

async function separateLocal(folder: string): Promise<boolean> {
	const {env: base, cleanup} = cliEnv({baseUrl: '', apiKey: '', appId: '', userId: '', companyId: '', assistantId: ''});
	const local = await startLocal(base);
	const {env} = cliEnv(local.settings);
	try {
		const upload = await runCli(['upload', folder, 'What is in these files?', '--json', '--poll-interval', '0.2'], env);
		const chatId = chatIdOf(upload);
		console.log(`separate \`local\`: \`upload\` exit ${String(upload.code)} in ${(upload.ms / 1000).toFixed(1)} s`);
		const short = await ask(env, chatId, 'How long does the battery last?');
		const shortOk = short.answered && short.run.ms <= goalChatMs;
		console.log(`  short \`chat\` question: exit ${String(short.run.code)} in ${(short.run.ms / 1000).toFixed(2)} s, ${short.answered ? 'answered' : 'NOT answered'} (goal answered within ${goalChatMs / 1000} s: ${verdict(shortOk)})`);
		const medium = await ask(env, chatId, prompt(1000));
		console.log(`  1 000-character prompt: exit ${String(medium.run.code)} in ${(medium.run.ms / 1000).toFixed(2)} s, ${medium.answered ? 'answered' : `NOT answered: ${(medium.run.stdout + medium.run.stderr).trim().slice(0, 120)}`} (goal answered: ${verdict(medium.answered)})`);
		const long = await ask(env, chatId, prompt(30_000));
		const longOk = long.answered || (long.refusal !== '' && /\d/.test(long.refusal));
		const longGist = long.answered ? 'answered' : (long.refusal === '' ? `neither answered nor refused in one sentence: ${(long.run.stdout + long.run.stderr).trim().slice(0, 120)}` : `refused: ${long.refusal}`);
		console.log(`  30 000-character prompt: exit ${String(long.run.code)} in ${(long.run.ms / 1000).toFixed(2)} s, ${longGist} (goal answered or refused naming the limit: ${verdict(longOk)})`);
		const over = await ask(env, chatId, prompt(defaultLimits.maxMessageChars + 1));
		const overOk = over.refusal.includes(String(defaultLimits.maxMessageChars));
		console.log(`  ${(defaultLimits.maxMessageChars + 1).toLocaleString('en-US')}-character prompt (over the limit): exit ${String(over.run.code)} in ${(over.run.ms / 1000).toFixed(2)} s, ${over.refusal === '' ? `not refused in one sentence: ${(over.run.stdout + over.run.stderr).trim().slice(0, 120)}` : `refused: ${over.refusal}`} (goal refused in one sentence naming the limit: ${verdict(overOk)})`);
		const peak = await peakOf(local.pid);
		const rssOk = peak <= goalRssBytes;
		console.log(`  peak RSS of \`local\` (VmHWM): ${formatMiB(peak)} (goal at most ${formatMiB(goalRssBytes)}: ${verdict(rssOk)})`);
		return shortOk && medium.answered && longOk && overOk && rssOk;
	} finally {
		await local.stop();
		cleanup();
	}
}

if (existsSync(cliPath)) {
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-local-'));
	try {
		await writeLogFile(path.join(folder, 'big.txt'), bigBytes);
		for (let index = 0; index < 20; index++) {
			writeFileSync(path.join(folder, `note-${index}.md`), `# Note ${index}\n\nThe battery of device ${index} lasts ${index + 2} hours. The warranty covers ${index + 1} years.\n`);
		}

		const ok = await uploadLocal(folder);
		process.exitCode = (await separateLocal(folder)) && ok ? 0 : 1;
	} finally {
		rmSync(folder, {recursive: true, force: true});
	}
} else {
	console.log(`local: skipped, ${cliPath} is missing (run \`npm run build\` first)`);
}
