/**
 * Built into a variant of `serve` in the journal's place (receiver-bound.ts swaps the journal's
 * `openJournal` for this one at bundle time), to measure how close any store could bring `serve`
 * to the flush floor. It is not a store: nothing here survives a restart or can be listed.
 *
 * - `BENCH_STORE_BOUND=memory`: the memory backend, nothing on disk.
 * - `BENCH_STORE_BOUND=append`: the floor's own append. Each body is written at the end of a file
 *   written with zeros beforehand and answered once a grouped `fdatasync` covering it returns;
 *   no record, headers, status, checksum or exactly-once index is kept.
 */
import {fdatasync, fsyncSync, mkdirSync, openSync, writeSync} from 'node:fs';
import path from 'node:path';
import type {AcceptResult, EventBackend} from '../../source/receiver/store/backend.js';
import {createMemoryBackend} from '../../source/receiver/store/memory-backend.js';

const fileBytes = 64 * 1024 * 1024;

/** Appends texts in groups: one write and one `fdatasync` for every text that came meanwhile. */
function groupedAppend(file: string): (text: string) => Promise<AcceptResult> {
	const fd = openSync(file, 'w+');
	const zeros = Buffer.alloc(1024 * 1024);
	for (let written = 0; written < fileBytes; written += zeros.length) {
		writeSync(fd, zeros);
	}

	fsyncSync(fd);
	let position = 0;
	let waiting: Array<{text: string; resolve: (result: AcceptResult) => void; reject: (error: unknown) => void}> = [];
	let flushing = false;
	const flush = (): void => {
		const group = waiting;
		waiting = [];
		if (group.length === 0) {
			flushing = false;
			return;
		}

		const text = group.map(item => item.text).join('');
		if (position + Buffer.byteLength(text) > fileBytes) {
			position = 0;
		}

		position += writeSync(fd, text, position);
		fdatasync(fd, error => {
			for (const item of group) {
				if (error) {
					item.reject(error);
				} else {
					item.resolve('stored');
				}
			}

			flush();
		});
	};

	return text => new Promise((resolve, reject) => {
		waiting.push({text, resolve, reject});
		if (!flushing) {
			flushing = true;
			setImmediate(flush);
		}
	});
}

export function openJournal(options: {directory: string}): Promise<EventBackend> {
	// Named as the journal: serve's `listening` line declares a journal or Redis only.
	const backend: EventBackend = {...createMemoryBackend(), kind: 'journal'};
	if (process.env.BENCH_STORE_BOUND !== 'append') {
		return Promise.resolve(backend);
	}

	mkdirSync(options.directory, {recursive: true});
	const append = groupedAppend(path.join(options.directory, 'append.bin'));
	return Promise.resolve({...backend, accept: event => append(event.body)});
}
