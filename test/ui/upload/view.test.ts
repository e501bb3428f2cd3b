import {describe, expect, it} from 'vitest';
import {formatBytes, formatElapsed, progressBar} from '../../../source/ui/upload/format.js';
import {plainLine} from '../../../source/ui/upload/plain.js';
import {initialUploadState, reduceUpload} from '../../../source/ui/upload/state.js';
import {compareCodePoints} from '../../../source/workflow/errors.js';
import type {UploadEvent} from '../../../source/workflow/events.js';

describe('plain lines', () => {
	it('prints one line per event, naming what happened', () => {
		const lines = ([
			{type: 'files-listed', folder: 'docs', files: [{name: 'a.md', size: 10, mimeType: 'text/markdown'}], totalBytes: 10, skipped: []},
			{type: 'space-loaded', space: {name: 'Support', languageModel: 'AZURE_GPT_4o_2024_1120', chatUpload: 'ENABLED', modules: ['DocumentSearch']}},
			{type: 'space-warning', message: 'Could not load space s: HTTP 404; going on without it'},
			{type: 'chat-created', chatId: 'chat_1', title: 'Folder upload session', durationMs: 12},
			{type: 'file-upserted', name: 'a.md', contentId: 'cont_1'},
			{type: 'file-uploaded', name: 'a.md', contentId: 'cont_1', bytes: 10, durationMs: 3},
			{type: 'file-finalized', name: 'a.md', contentId: 'cont_1'},
			{type: 'upload-complete', files: 1, failed: 0, bytes: 2048, durationMs: 1000, bytesPerSecond: 2048},
			{type: 'ingestion-started', total: 1, timeoutMs: 60_000},
			{type: 'ingestion-state', contentId: 'cont_1', name: 'a.md', state: 'FINISHED', final: true},
			{type: 'ingestion-round', round: 1, finished: 1, failed: 0, total: 1, pending: [], elapsedMs: 150, timeoutMs: 60_000},
			{type: 'message-sent', messageId: 'msg_1', text: 'Why?'},
			{type: 'reply-progress', text: 'Because', elapsedMs: 100},
			{type: 'reply-complete', text: 'Because it is.', elapsedMs: 1500},
			{type: 'history', messages: [{role: 'USER', text: 'Why?'}, {role: 'ASSISTANT', text: 'Because it is.'}]},
			{type: 'result', chatId: 'chat_1', contentIds: ['cont_1'], reply: 'Because it is.', failed: []},
		] satisfies UploadEvent[]).map(event => plainLine(event));
		expect(lines).toEqual([
			'Files: 1 in docs (10 B): a.md',
			'Space: Support · model AZURE_GPT_4o_2024_1120 · chat upload ENABLED · modules DocumentSearch',
			'Warning: Could not load space s: HTTP 404; going on without it',
			'Chat: created chat_1 "Folder upload session" in 12 ms',
			'Upserted a.md as cont_1',
			'Uploaded a.md: 10 B in 3 ms',
			'Finalized a.md (cont_1)',
			'Upload: 1 file, 2.00 KiB in 1.0 s (2.00 KiB/s)',
			'Ingestion: waiting for 1 content (deadline 60 s)',
			'Ingestion: a.md (cont_1) FINISHED',
			'Ingestion: round 1, 1/1 finished, 150 ms of 60 s',
			'Asked: Why?',
			'Reply (streaming): Because',
			'Reply (1.5 s): Because it is.',
			'History:\n  USER: Why?\n  ASSISTANT: Because it is.',
			'Done: chat chat_1, contents cont_1',
		]);
	});
});

describe('screen state', () => {
	it('adds a file to the finished rows once, when it becomes final', () => {
		let state = initialUploadState(0);
		const events: UploadEvent[] = [
			{type: 'files-listed', folder: 'd', files: [{name: 'a', size: 4, mimeType: 'text/plain'}, {name: 'b', size: 6, mimeType: 'text/plain'}], totalBytes: 10, skipped: []},
			{type: 'file-upserted', name: 'a', contentId: 'c1'},
			{type: 'file-progress', name: 'a', contentId: 'c1', sentBytes: 2, totalBytes: 4},
			{type: 'file-uploaded', name: 'a', contentId: 'c1', bytes: 4, durationMs: 1},
			{type: 'ingestion-state', contentId: 'c1', name: 'a', state: 'INGESTION_READING', final: false},
			{type: 'ingestion-state', contentId: 'c1', name: 'a', state: 'FINISHED', final: true},
			{type: 'ingestion-state', contentId: 'c1', name: 'a', state: 'FINISHED', final: true},
		];
		for (const event of events) {
			state = reduceUpload(state, event, 0);
		}

		expect(state.sentBytes).toBe(4);
		expect(state.finished.flatMap(item => (item.kind === 'file' ? [[item.key, item.row.phase, item.row.state]] : []))).toEqual([['a', 'finished', 'FINISHED']]);
		expect(state.files.find(row => row.name === 'b')?.phase).toBe('waiting');
	});
});

describe('format helpers', () => {
	it('formats sizes, durations and bars', () => {
		expect([0, 1023, 1024, 1536, 256 * 1024, 1024 ** 3].map(bytes => formatBytes(bytes))).toEqual(['0 B', '1023 B', '1.00 KiB', '1.50 KiB', '256 KiB', '1.00 GiB']);
		expect([5, 1500, 65_000, 86_400_000].map(ms => formatElapsed(ms))).toEqual(['5 ms', '1.5 s', '1 min 05 s', '1 d 0 h']);
		expect(progressBar(1, 4, 8)).toBe('██░░░░░░  25%');
	});

	it('orders names by code point, not by UTF-16 unit or locale', () => {
		// U+FF5E (fullwidth tilde) is below U+1F600 (an emoji, a surrogate pair in UTF-16).
		const names = ['😀.txt', '～.txt', 'b.txt', 'B.txt', 'é.txt'];
		expect([...names].sort(compareCodePoints)).toEqual(['B.txt', 'b.txt', 'é.txt', '～.txt', '😀.txt']);
		expect(['\uFF5E', '\u{1F600}'].sort()).toEqual(['\u{1F600}', '\uFF5E']);
	});
});
