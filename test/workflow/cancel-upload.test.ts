/**
 * Ctrl+C or SIGTERM at any instant of an upload: a run is stopped at 20 instants spread over it
 * (the chat created, transfers starting, a 2 MiB file in flight, files finalized, the upload
 * complete, ingestion, the question asked), each chosen by a line the run printed rather than by
 * the clock. Every run exits 130 (143 on SIGTERM), prints the resume command, no stack trace, and
 * with --json ends with the `cancelled` line and then the `error` line. The reply is held (the
 * platform's model never answers) so no run can finish before its signal.
 *
 * The 20 instants run in-process (the dispatcher with the signal the entry aborts on SIGINT and
 * SIGTERM; a rejection or stream 'error' left unhandled fails the test as it would end the process),
 * so they take a few seconds; three of them run again through the built CLI with real signals.
 */
import {spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runCli} from '../../source/cli/run-cli.js';
import {registry} from '../../source/commands/registry.js';
import {childEnv, cliPath} from '../support/cli.js';
import {memoryStream, testEnv} from '../support/run-command.js';
import {Readable} from 'node:stream';
import {startPlatform, type TestPlatform} from '../support/platform.js';

type Trigger = {
	/** What the line that sends the signal starts with (plain) or its `type` (--json). */
	line: string;
	/** The how-manieth such line. */
	nth: number;
	json: boolean;
	signal: 'SIGINT' | 'SIGTERM';
	/** Extra test on a --json line, e.g. the big file's first progress. */
	match?: (value: Record<string, unknown>) => boolean;
	/** `upload --local`: the platform runs in the CLI's own process (its chats end with it: no resume). */
	local?: boolean;
};

const bigFile = 'm-big.txt';
const bigStarts = (value: Record<string, unknown>) => value.name === bigFile && value.sentBytes === 0;

const jsonTriggers: Array<[string, number, Trigger['match']?]> = [
	['chat-created', 1], ['file-started', 1], ['file-upserted', 3], ['file-progress', 1, bigStarts],
	['file-uploaded', 3], ['file-finalized', 4], ['file-started', 6], ['file-uploaded', 7], ['file-finalized', 8],
	['upload-complete', 1], ['ingestion-started', 1], ['ingestion-round', 1], ['message-sent', 1],
];
const plainTriggers: Array<[string, number]> = [
	// Plain output prints a file once, at its final state (ui/upload/plain-output.ts).
	['If this run stops', 1], ['Upload:', 1], ['Ingestion: waiting', 1], ['Ingestion: f0', 3], ['Ingestion: f0', 7], ['Asked:', 1],
];
const triggers: Trigger[] = [
	...jsonTriggers.map(([line, nth, match], index): Trigger => ({line, nth, json: true, signal: index % 3 === 2 ? 'SIGTERM' : 'SIGINT', ...(match ? {match} : {})})),
	// `--local` (its own platform, whose reply is not held) is aborted as the line is printed, long before it could finish.
	{line: 'file-progress', nth: 1, json: true, signal: 'SIGTERM', match: bigStarts, local: true},
	...plainTriggers.map(([line, nth], index): Trigger => ({line, nth, json: false, signal: index % 3 === 1 ? 'SIGTERM' : 'SIGINT'})),
];

let platform: TestPlatform;
let model: Server;
let folder: string;
let root: string;

beforeAll(async () => {
	// The platform's model: takes each question and never answers, so every run waits at its reply.
	model = createServer(() => undefined);
	await new Promise<void>(resolve => {
		model.listen(0, '127.0.0.1', resolve);
	});
	// Only the big file's first 64 KiB are indexed: the transfer is what is tested, not the index.
	platform = await startPlatform({llmUrl: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`, limits: {maxTextBytes: 64 * 1024}});
	root = mkdtempSync(path.join(tmpdir(), 'platform-tui-cancel-'));
	folder = path.join(root, 'folder');
	mkdirSync(folder);
	for (let index = 1; index <= 8; index++) {
		writeFileSync(path.join(folder, `f${String(index).padStart(2, '0')}.txt`), `File ${index} is about the warranty.\n`);
	}

	writeFileSync(path.join(folder, bigFile), randomBytes(1536 * 1024).toString('base64'));
});

afterAll(async () => {
	model.closeAllConnections();
	model.close();
	await platform.close();
});

type Outcome = {trigger: Trigger; code: number | null; stdout: string; stderr: string; missed: boolean};

/**
 * Counts the trigger's lines in what a run prints and calls `stop` once the trigger's line is seen.
 * A run that asks its question (the last line before the held reply) without printing the
 * trigger's line is stopped there and marked `missed`, so a changed line fails the test at once.
 */
function lineWatcher(trigger: Trigger, stop: () => void): {watch: (text: string) => void; missed: () => boolean} {
	let seen = 0;
	let partial = '';
	let missed = false;
	const watch = (text: string): void => {
		partial += text;
		const lines = partial.split('\n');
		partial = lines.pop() ?? '';
		for (const line of lines) {
			if (seen >= trigger.nth || missed) {
				return;
			}

			const value = trigger.json ? JSON.parse(line) as Record<string, unknown> : undefined;
			const matches = value === undefined ? line.startsWith(trigger.line) : value.type === trigger.line && (trigger.match?.(value) ?? true);
			seen += matches ? 1 : 0;
			if (seen === trigger.nth) {
				stop();
			} else if (value === undefined ? line.startsWith('Asked:') : value.type === 'message-sent') {
				missed = true;
				stop();
			}
		}
	};

	return {watch, missed: () => missed};
}

function uploadArgs(trigger: Trigger): string[] {
	return ['upload', ...(trigger.local ? ['--local'] : []), folder, 'What is covered?', '--concurrency', '4', '--reply-timeout', '3600', '--poll-interval', '0.02', ...(trigger.json ? ['--json'] : [])];
}

/** Runs one upload in-process and aborts its signal (as the entry does on the trigger's signal) once the trigger's line was printed. */
async function cancelInProcess(trigger: Trigger, index: number): Promise<Outcome> {
	const controller = new AbortController();
	const stdout = memoryStream();
	const stderr = memoryStream();
	const {watch, missed} = lineWatcher(trigger, () => {
		controller.abort(trigger.signal);
	});
	(trigger.json ? stdout : stderr).on('data', (chunk: Buffer) => {
		watch(chunk.toString('utf8'));
	});
	const env = testEnv({CI: 'true', ...platform.env({PLATFORM_TUI_DATA_DIR: path.join(root, `data-${index}`)})});
	const code = await runCli(registry, uploadArgs(trigger), {stdin: Readable.from([]), stdout, stderr, env, signal: controller.signal});
	return {trigger, code, stdout: stdout.text(), stderr: stderr.text(), missed: missed()};
}

/** Runs one upload through the built CLI and sends the trigger's signal once the trigger's line was printed. */
async function cancelProcess(trigger: Trigger, index: number): Promise<Outcome> {
	const dataDir = path.join(root, `process-data-${index}`);
	const child = spawn(process.execPath, [cliPath, ...uploadArgs(trigger)], {env: childEnv(platform.env({PLATFORM_TUI_DATA_DIR: dataDir})), stdio: ['ignore', 'pipe', 'pipe']});
	let stdout = '';
	let stderr = '';
	const {watch, missed} = lineWatcher(trigger, () => {
		child.kill(trigger.signal);
	});
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (chunk: string) => {
		stdout += chunk;
		if (trigger.json) {
			watch(chunk);
		}
	});
	child.stderr.setEncoding('utf8');
	child.stderr.on('data', (chunk: string) => {
		stderr += chunk;
		if (!trigger.json) {
			watch(chunk);
		}
	});
	const code = await new Promise<number | null>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', resolve);
	});
	return {trigger, code, stdout, stderr, missed: missed()};
}

/** Runs every trigger, a few at a time (each run mostly waits on the platform). */
async function cancelAtAll(run: (trigger: Trigger, index: number) => Promise<Outcome>, triggers: Trigger[]): Promise<Outcome[]> {
	const outcomes: Outcome[] = [];
	let next = 0;
	const lane = async (): Promise<void> => {
		while (next < triggers.length) {
			const index = next++;
			const trigger = triggers[index];
			if (trigger) {
				outcomes[index] = await run(trigger, index);
			}
		}
	};

	await Promise.all([lane(), lane(), lane(), lane()]);
	return outcomes;
}

function expectCleanStop({trigger, code, stdout, stderr, missed}: Outcome): void {
	const name = `${trigger.signal} after ${trigger.line} #${trigger.nth}${trigger.json ? ' --json' : ''}\nstderr: ${stderr.slice(-2000)}`;
	expect(missed, `${name}\nthe run printed no such line`).toBe(false);
	expect(code, name).toBe(trigger.signal === 'SIGTERM' ? 143 : 130);
	expect(stderr, name).not.toMatch(/\n\s+at |Unhandled|ERR_STREAM|node:internal/);
	expect(stderr, name).toMatch(trigger.local ? /Cancelled; in-flight requests were aborted\.\n$/ : /Cancelled; in-flight requests were aborted\. Chat chat_\w+ keeps every file sent so far; continue with: platform-tui upload .+ --chat chat_\w+/);
	if (trigger.json) {
		const lines = stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		const cancelled = lines.at(-2) ?? {};
		expect(cancelled, name).toMatchObject(trigger.local ? {type: 'cancelled'} : {type: 'cancelled', resume: expect.stringMatching(/^platform-tui upload .+ --chat chat_\w+$/) as unknown});
		expect(lines.at(-1), name).toMatchObject({type: 'error', code: 'cancelled', message: trigger.signal === 'SIGTERM' ? 'Stopped by SIGTERM.' : 'Cancelled by Ctrl+C.'});
		// The error line names the chat and how to continue it, as the cancelled line does.
		expect(lines.at(-1)?.chatId, name).toBe(cancelled.chatId);
		expect(lines.at(-1)?.resume, name).toBe(cancelled.resume);
		if (!trigger.local) {
			expect(lines.at(-1)?.next, name).toBe(`Chat ${String(cancelled.chatId)} keeps every file sent so far; continue with: ${String(cancelled.resume)}`);
		}
	}
}

describe('upload stopped at 20 instants', () => {
	it('exits 130 (143 on SIGTERM) with the resume command (none for --local), no stack trace, and --json ends with cancelled then error', async () => {
		const outcomes = await cancelAtAll(cancelInProcess, triggers);
		expect(outcomes).toHaveLength(20);
		for (const outcome of outcomes) {
			expectCleanStop(outcome);
		}

		// The platform took every client that left in its stride: it still answers.
		const health = await fetch(`${platform.url}/health`);
		expect(health.status).toBe(200);
	});

	it('the built CLI stopped by real signals: the big file in flight (SIGINT, --json), files ingested (SIGTERM), the question asked (SIGINT)', async () => {
		const chosen: Trigger[] = [
			{line: 'file-progress', nth: 1, json: true, signal: 'SIGINT', match: bigStarts},
			{line: 'Ingestion: f0', nth: 2, json: false, signal: 'SIGTERM'},
			{line: 'Asked:', nth: 1, json: false, signal: 'SIGINT'},
		];
		const outcomes = await cancelAtAll(cancelProcess, chosen);
		for (const outcome of outcomes) {
			expectCleanStop(outcome);
		}
	});
});
