/**
 * Reads a journal in a child process. LMDB trusts its file: damage inside it can end the process
 * that maps it with a signal (SIGBUS, SIGSEGV) or an assertion (SIGABRT), which no JavaScript can
 * catch. So whatever may touch a damaged file — the check at open and `events recover` — runs in a
 * child that opens the file read-only and reports each record as it goes; a signal there ends the
 * child only, and the parent knows the last record it got.
 *
 * The child is reader-child.ts, a compiled and linted module; it gets the journal folder and its
 * task as JSON on stdin. Each message is one frame on its stdout: 4 bytes of length, then the
 * message in V8's serialization (every value lmdb decodes survives it). Frames are written with a
 * synchronous write, so a frame the parent got was complete when the child died.
 */
import {spawn} from 'node:child_process';
import {existsSync, statSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {deserialize} from 'node:v8';
import type {StepRecord} from '../store/backend.js';
import type {StoredRecord} from './records/record-codec.js';
import type {StepKey, TimeKey} from './records/shapes.js';

/** What a reading child does. */
export type ReaderTask =
	| {t: 'verify'; write: boolean}
	| {t: 'events'; reverse: boolean; after?: TimeKey}
	| {t: 'seen'; reverse: boolean};

export type ReaderMessage =
	| {t: 'counts'; counts: Record<string, number>}
	| {t: 'event'; key: TimeKey; value: StoredRecord}
	/** An event whose value no longer decodes. */
	| {t: 'damaged'; key: TimeKey; message: string}
	| {t: 'steps'; id: string; entries: Array<[StepKey, StepRecord]>}
	| {t: 'seen'; entries: Array<[string, number]>}
	| {t: 'error'; message: string}
	| {t: 'end'};

export type ReaderEnd = {
	/** The child read all it was asked to. */
	complete: boolean;
	/** How it ended otherwise: a signal's name, an exit code, or an error lmdb threw. */
	failure?: string;
};

/**
 * How to start the child: the build's reader-child.js beside this module (the build puts every
 * module in dist/ itself, esbuild.config.mjs); or, when this module runs from source (the tests),
 * the build's copy when it is at least as new as reader-child.ts (the child imports nothing of
 * this project's but types, so that one file is what it is built from), else reader-child.ts
 * through tsx, which costs a TypeScript loader per child.
 */
function childArgs(): string[] {
	const compiled = fileURLToPath(new URL('reader-child.js', import.meta.url));
	if (existsSync(compiled)) {
		return [compiled];
	}

	const source = fileURLToPath(new URL('reader-child.ts', import.meta.url));
	const built = fileURLToPath(new URL('../../../dist/reader-child.js', import.meta.url));
	return isAsNew(built, source) ? [built] : ['--import', 'tsx', source];
}

function isAsNew(file: string, than: string): boolean {
	try {
		return statSync(file).mtimeMs >= statSync(than).mtimeMs;
	} catch {
		return false;
	}
}

/** Splits the child's stdout into frames. */
function framer(onMessage: (message: ReaderMessage) => void): (chunk: Buffer) => void {
	let pending: Buffer = Buffer.alloc(0);
	return chunk => {
		pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
		while (pending.length >= 4) {
			const length = pending.readUInt32LE(0);
			if (pending.length < 4 + length) {
				return;
			}

			onMessage(deserialize(pending.subarray(4, 4 + length)) as ReaderMessage);
			pending = pending.subarray(4 + length);
		}
	};
}

/**
 * Runs one task over the journal in `folder` in a child; `onMessage` gets each record as it comes.
 * Never rejects for what the file holds: a child that dies reports how in `failure`.
 */
export async function readInChild(folder: string, task: ReaderTask, onMessage: (message: ReaderMessage) => void, timeoutMs = 10 * 60_000): Promise<ReaderEnd> {
	const child = spawn(process.execPath, childArgs(), {stdio: ['pipe', 'pipe', 'pipe']});
	// The folder and the task go in on stdin: the child reads no argv.
	child.stdin.on('error', () => {
		// A child that died before reading its input is reported by its exit below.
	});
	child.stdin.end(JSON.stringify({folder, task}));
	const state = {ended: false};
	let failure: string | undefined;
	let stderr = '';
	child.stdout.on('data', framer(message => {
		if (message.t === 'end') {
			state.ended = true;
		} else if (message.t === 'error') {
			failure = `reading it failed: ${message.message}`;
		} else {
			onMessage(message);
		}
	}));
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		stderr = (stderr + chunk).slice(-2000);
	});
	const timer = setTimeout(() => {
		failure = `it took longer than ${Math.round(timeoutMs / 1000)} s`;
		child.kill('SIGKILL');
	}, timeoutMs);
	const {code, signal} = await new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve, reject) => {
		child.once('error', reject);
		child.once('close', (exitCode, exitSignal) => {
			resolve({code: exitCode, signal: exitSignal});
		});
	}).finally(() => {
		clearTimeout(timer);
	});
	if (state.ended && code === 0) {
		return {complete: true};
	}

	const assertion = /Assertion[^\n]*/.exec(stderr)?.[0];
	const how = failure ?? (signal ? `reading it ended with ${signal}${assertion ? ` (${assertion.trim()})` : ''}` : `reading it ended with exit code ${code ?? 'unknown'}${stderr.trim() ? `: ${stderr.trim().split('\n').at(-1) ?? ''}` : ''}`);
	return {complete: false, failure: how};
}
