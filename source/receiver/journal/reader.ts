/**
 * Reads a journal in a child process. LMDB trusts its file: damage inside it can end the process
 * that maps it with a signal (SIGBUS, SIGSEGV) or an assertion (SIGABRT), which no JavaScript can
 * catch. So whatever may touch a damaged file — the check at open and `events recover` — runs in a
 * child that opens the file read-only and reports each record as it goes; a signal there ends the
 * child only, and the parent knows the last record it got.
 *
 * The child is plain JavaScript (Node and lmdb only, no build step), given lmdb's path, the
 * journal folder and its task. Each message is one frame on its stdout: 4 bytes of length, then the
 * message in V8's serialization (every value lmdb decodes survives it). Frames are written with a
 * synchronous write, so a frame the parent got was complete when the child died.
 */
import {spawn} from 'node:child_process';
import {createRequire} from 'node:module';
import {deserialize} from 'node:v8';
import type {StepRecord} from '../backend.js';
import type {StoredRecord} from './record-codec.js';
import type {StepKey, TimeKey} from './store.js';

/** What a reading child does. */
export type ReaderTask =
	| {t: 'verify'; write: boolean}
	| {t: 'events'; reverse: boolean; after?: TimeKey}
	| {t: 'seen'; reverse: boolean}
	| {t: 'lookup'; keys: TimeKey[]};

export type ReaderMessage =
	| {t: 'counts'; counts: Record<string, number>}
	| {t: 'try'; key: TimeKey}
	| {t: 'lost'; key: TimeKey; message: string}
	| {t: 'event'; key: TimeKey; value: StoredRecord}
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

const childSource = String.raw`'use strict';
const fs = require('fs');
const v8 = require('v8');
const [lmdbPath, folder, taskText] = process.argv.slice(1);
const task = JSON.parse(taskText);
function send(message) {
	const body = v8.serialize(message);
	const frame = Buffer.alloc(4 + body.length);
	frame.writeUInt32LE(body.length, 0);
	body.copy(frame, 4);
	let offset = 0;
	while (offset < frame.length) {
		try {
			offset += fs.writeSync(1, frame, offset);
		} catch (error) {
			if (error.code !== 'EAGAIN') throw error;
		}
	}
}
try {
	const {open} = require(lmdbPath);
	const root = open({path: folder, maxDbs: 8, noSubdir: false, readOnly: true});
	const db = name => root.openDB({name, useVersions: name === 'claims'});
	const highest = Number.MAX_SAFE_INTEGER;
	const sendSteps = (steps, id) => {
		const entries = [];
		for (const {key, value} of steps.getRange({start: [id, 0, 0], end: [id, highest]})) entries.push([key, value]);
		send({t: 'steps', id, entries});
	};
	if (task.t === 'verify') {
		const counts = {};
		for (const name of [...root.getKeys({})]) {
			if (typeof name !== 'string') continue;
			const store = db(name);
			if (!store) continue;
			let count = 0;
			for (const entry of store.getRange({})) {
				if (entry.value === undefined) throw new Error('an entry of ' + name + ' has no value');
				count++;
			}
			counts[name] = count;
		}
		if (task.write) {
			// A write reads the free-page list, which no read touches: allocate pages in a write
			// transaction and abort it, so the file is left as it was.
			root.close();
			const writer = open({path: folder, maxDbs: 8, noSubdir: false, overlappingSync: false});
			const meta = writer.openDB({name: 'meta'});
			const abort = new Error('abort');
			try {
				writer.transactionSync(() => {
					meta.put('\u0000probe', Buffer.alloc(256 * 1024));
					for (let index = 0; index < 64; index++) meta.put('\u0000probe' + index, Buffer.alloc(1000));
					throw abort;
				});
			} catch (error) {
				if (error !== abort) throw error;
			}
		}
		send({t: 'counts', counts});
	} else if (task.t === 'events') {
		const events = db('events');
		const steps = db('steps');
		const range = task.reverse ? {reverse: true} : {};
		if (task.after) range[task.reverse ? 'end' : 'start'] = task.after;
		for (const {key, value} of events.getRange(range)) {
			if (task.after && !task.reverse && key[0] === task.after[0] && key[1] === task.after[1]) continue;
			send({t: 'event', key, value});
			sendSteps(steps, key[1]);
		}
	} else if (task.t === 'seen') {
		let entries = [];
		for (const {key, value} of db('seen').getRange(task.reverse ? {reverse: true} : {})) {
			entries.push([key, value]);
			if (entries.length >= 100) {
				send({t: 'seen', entries});
				entries = [];
			}
		}
		send({t: 'seen', entries});
	} else if (task.t === 'lookup') {
		const events = db('events');
		const steps = db('steps');
		for (const key of task.keys) {
			send({t: 'try', key});
			let value;
			try {
				value = events.get(key);
			} catch (error) {
				send({t: 'lost', key, message: String(error && error.message || error)});
				// A failed read leaves its read transaction unusable: the next lookup gets a new one.
				try { root.resetReadTxn(); } catch {}
				continue;
			}
			if (value !== undefined) {
				send({t: 'event', key, value});
				sendSteps(steps, key[1]);
			}
		}
	}
	send({t: 'end'});
	process.exit(0);
} catch (error) {
	send({t: 'error', message: String(error && error.message || error)});
	process.exit(3);
}
`;

/** Where lmdb's CommonJS entry is, for the child. */
function lmdbEntry(): string {
	return createRequire(import.meta.url).resolve('lmdb');
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
	const child = spawn(process.execPath, ['-e', childSource, lmdbEntry(), folder, JSON.stringify(task)], {stdio: ['ignore', 'pipe', 'pipe']});
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
