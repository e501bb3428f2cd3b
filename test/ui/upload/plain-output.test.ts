/**
 * Plain output a person can skim: one line per file at most (its final state), a --stats summary
 * line on the clock given, -q only the reply, history and failures; and the screen's scrollback
 * keeps a few FINISHED rows, every failure, and counts the rest (a 2 000-file run in pure code).
 */
import {describe, expect, it} from 'vitest';
import {createPlainOutput, type PlainOutput, type PlainOutputLine} from '../../../source/ui/upload/plain-output.js';
import {initialUploadState, listedFinishedRows, reduceUpload} from '../../../source/ui/upload/state.js';
import type {UploadEvent} from '../../../source/workflow/events.js';

const name = (index: number) => `f${String(index).padStart(4, '0')}.txt`;

/** The events of an upload of `count` 10-byte files, each file's steps in order; `failing` fail at ingestion. */
function uploadEvents(count: number, failing: ReadonlySet<number> = new Set()): UploadEvent[] {
	const files = Array.from({length: count}, (_, index) => ({name: name(index), size: 10, mimeType: 'text/plain'}));
	const events: UploadEvent[] = [
		{type: 'files-listed', folder: 'docs', files, totalBytes: 10 * count, skipped: []},
		{type: 'chat-created', chatId: 'chat_1', title: 'Folder upload session', durationMs: 5},
	];
	for (const [index, file] of files.entries()) {
		const contentId = `cont_${index}`;
		events.push(
			{type: 'file-started', name: file.name},
			{type: 'file-upserted', name: file.name, contentId},
			{type: 'file-progress', name: file.name, contentId, sentBytes: 5, totalBytes: 10},
			{type: 'file-uploaded', name: file.name, contentId, bytes: 10, durationMs: 1},
			{type: 'file-finalized', name: file.name, contentId},
		);
	}

	events.push({type: 'upload-complete', files: count, failed: 0, bytes: 10 * count, durationMs: 100, bytesPerSecond: 100 * count}, {type: 'ingestion-started', total: count, timeoutMs: 120_000});
	for (const [index, file] of files.entries()) {
		const state = failing.has(index) ? 'FAILED_PARSING' : 'FINISHED';
		events.push({type: 'ingestion-state', contentId: `cont_${index}`, name: file.name, state: 'INGESTION_READING', final: false}, {type: 'ingestion-state', contentId: `cont_${index}`, name: file.name, state, final: true});
	}

	events.push(
		{type: 'ingestion-round', round: 1, finished: count - failing.size, failed: failing.size, total: count, pending: [], elapsedMs: 10, timeoutMs: 120_000},
		{type: 'ingestion-complete', total: count, finished: count - failing.size, failed: failing.size, elapsedMs: 10},
		{type: 'message-sent', text: 'Why?'},
		{type: 'reply-progress', text: 'Because', elapsedMs: 5},
		{type: 'reply-complete', text: 'Because it is.', elapsedMs: 9},
		{type: 'history', messages: [{role: 'USER', text: 'Why?'}, {role: 'ASSISTANT', text: 'Because it is.'}]},
		{type: 'result', chatId: 'chat_1', contentIds: files.map((_, index) => `cont_${index}`), reply: 'Because it is.', failed: []},
	);
	return events;
}

function printAll(events: readonly UploadEvent[], print: PlainOutput): PlainOutputLine[] {
	return events.flatMap(event => print.event(event));
}

describe('plain output', () => {
	it('prints at most one line per file, its final state, and the run\'s steps', () => {
		const lines = printAll(uploadEvents(2000, new Set([7])), createPlainOutput({clock: () => 0})).map(line => line.text);
		const perFile = lines.filter(line => / f\d{4}\.txt /.test(line));
		expect(perFile).toHaveLength(2000);
		expect(perFile[0]).toBe('Ingestion: f0000.txt (cont_0) FINISHED');
		expect(perFile[7]).toBe('Ingestion: f0007.txt (cont_7) FAILED_PARSING');
		expect(lines.length).toBeLessThan(2000 + 12);
		expect(lines.some(line => line.startsWith('Upserted') || line.startsWith('Uploading') || line.startsWith('Reply (streaming)'))).toBe(false);
		expect(lines.at(-1)).toMatch(/^Done: chat chat_1/);
	});

	it('prints a stats line once per interval on the given clock, none after the result', () => {
		let now = 0;
		const print = createPlainOutput({statsIntervalMs: 1000, clock: () => now});
		const events = uploadEvents(20);
		const stats: string[] = [];
		for (const [index, event] of events.entries()) {
			now = index * 100;
			stats.push(...print.event(event).filter(line => line.text.startsWith('Stats: ')).map(line => line.text));
		}

		// 20 files × ~7 events at 100 ms each: one summary a second, until the event before the result.
		expect(stats.length).toBe(Math.floor(((events.length - 2) * 100) / 1000));
		expect(stats[0]).toMatch(/^Stats: \d+\/20 files uploaded, \d+ B of 200 B, .+, \d+ ingested, 1\.0 s elapsed$/);
		expect(stats.at(-1)).toContain('20/20 files uploaded, 200 B of 200 B');
	});

	it('prints the summary on the timer too, while no event comes, once per interval', () => {
		let now = 0;
		const print = createPlainOutput({statsIntervalMs: 5000, clock: () => now});
		const [listed] = uploadEvents(3);
		print.event(listed ?? {type: 'space-warning', message: ''});
		now = 4999;
		expect(print.due()).toEqual([]);
		now = 5000;
		expect(print.due()).toEqual([{stream: 'stderr', text: 'Stats: 0/3 files uploaded, 0 B of 30 B, –, 0 ingested, 5.0 s elapsed'}]);
		expect(print.due()).toEqual([]);
		expect(createPlainOutput({quiet: true, statsIntervalMs: 1, clock: () => now + 10}).due()).toEqual([]);
	});

	it('-q prints the reply, the history and the failures only', () => {
		const events = uploadEvents(30, new Set([3]));
		events.splice(5, 0, {type: 'file-failed', name: name(9), message: 'Uploading f0009.txt failed: HTTP 403'});
		const lines = printAll(events, createPlainOutput({quiet: true, statsIntervalMs: 1, clock: () => Date.now()}));
		expect(lines).toEqual([
			{stream: 'stderr', text: 'Failed f0009.txt: Uploading f0009.txt failed: HTTP 403'},
			{stream: 'stdout', text: 'Reply (9 ms): Because it is.'},
			{stream: 'stdout', text: 'History:\n  USER: Why?\n  ASSISTANT: Because it is.'},
		]);
	});
});

describe('the screen\'s scrollback', () => {
	it('keeps the first FINISHED rows and every failure of a 2 000-file run, and counts the rest in the ingestion summary', () => {
		const failing = new Set([3, 1500, 1999]);
		let state = initialUploadState(0);
		for (const event of uploadEvents(2000, failing)) {
			state = reduceUpload(state, event, 0);
		}

		const rows = state.finished.filter(item => item.kind === 'file');
		expect(rows.filter(item => item.row.phase === 'finished')).toHaveLength(listedFinishedRows);
		expect(rows.filter(item => item.row.phase === 'failed').map(item => item.key)).toEqual([name(3), name(1500), name(1999)]);
		expect(state.finished.find(item => item.kind === 'ingestion')).toMatchObject({finished: 1997, failed: 3, folded: 1997 - listedFinishedRows});
		expect(state.finished.length).toBeLessThan(listedFinishedRows + 3 + 6);
	});
});
