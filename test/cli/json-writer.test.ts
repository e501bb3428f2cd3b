/**
 * The run's one writer of records (source/cli/json-writer.ts, cli/output.ts): a record is checked
 * against its declaration before it is printed; the last line lists the ids named by the declared
 * id fields and those handed over with `touched`, never ids read back from stdout; without --json
 * the record's plain text is printed instead; `coalesce` makes many lines one write.
 */
import {describe, expect, it} from 'vitest';
import {errorLine, resultLine} from '../../source/cli/json.js';
import {createJsonWriter, UndeclaredRecordError} from '../../source/cli/json-writer.js';
import {createPlainOutput} from '../../source/cli/output.js';
import {runCliInProcess} from '../support/run-cli.js';

/** A stdout that keeps each write apart. */
function recordingStream() {
	const writes: string[] = [];
	const stream = {
		write(chunk: string) {
			writes.push(chunk);
			return true;
		},
	} as unknown as NodeJS.WritableStream;
	return {stream, writes, lines: () => writes.join('').split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Record<string, unknown>)};
}

describe('the --json writer', () => {
	it('prints a declared record as it was handed over, one line, its key order kept', () => {
		const out = recordingStream();
		const writer = createJsonWriter(out.stream);
		writer.print({type: 'file-upserted', name: 'a.md', contentId: 'cont_a'}, 'never printed with --json\n');
		expect(out.writes).toEqual(['{"type":"file-upserted","name":"a.md","contentId":"cont_a"}\n']);
	});

	it('refuses a type json-records.ts does not declare, fields its schema does not allow, and the last line\'s types', () => {
		const writer = createJsonWriter(recordingStream().stream);
		expect(() => {
			writer.print({type: 'no-such-record'} as never);
		}).toThrow(UndeclaredRecordError);
		expect(() => {
			writer.print({type: 'path', path: '/x', extra: true});
		}).toThrow(/"path" does not match its declaration at the top/);
		expect(() => {
			writer.print({type: 'file-upserted', name: 'a.md', contentId: ''});
		}).toThrow(/at contentId/);
		expect(() => {
			writer.print({type: 'result', command: 'x', exitCode: 0, chatIds: [], contentIds: [], eventIds: []});
		}).toThrow(/only the end of the run prints/);
	});

	it('lists on the last line the ids of the declared id fields, nested ones included, then those handed over', () => {
		const out = recordingStream();
		const writer = createJsonWriter(out.stream);
		writer.print({type: 'chat-created', chatId: 'chat_1', title: 'T', durationMs: 5});
		writer.print({
			type: 'sync-planned', dryRun: true, chatId: 'chat_1', upload: [{name: 'n.md', size: 1}], replace: [], awaiting: [{name: 'w.md', size: 1, contentId: 'cont_w'}],
			unchanged: [{name: 'u.md', size: 1, contentId: 'cont_u'}],
		});
		writer.print({type: 'reply', chatId: 'chat_1', contentIds: ['cont_u', 'cont_n'], reply: 'ok', failed: [{name: 'f.md', stage: 'upload', reason: 'HTTP 400', contentId: 'cont_f'}]});
		// A message id and an `unreadable` event's id name nothing the run touched.
		writer.print({type: 'message-sent', messageId: 'msg_1', text: 'q'});
		writer.print({type: 'unreadable', id: 'evt_damaged', reason: 'checksum'});
		writer.print({type: 'event-id', id: 'evt_1'});
		writer.touched({chatIds: ['chat_2'], eventIds: ['evt_1', 'evt_2']});
		writer.result('upload', 0);
		const last = resultLine.parse(out.lines().at(-1));
		expect(last).toEqual({type: 'result', command: 'upload', exitCode: 0, chatIds: ['chat_1', 'chat_2'], contentIds: ['cont_w', 'cont_u', 'cont_n', 'cont_f'], eventIds: ['evt_1', 'evt_2']});
	});

	it('ends a failed run with one error line that names the stopped chat among the ids', () => {
		const out = recordingStream();
		const writer = createJsonWriter(out.stream);
		writer.error({code: 'platform-rejected', message: 'Uploading a.md failed.', next: 'Continue with: …', chatId: 'chat_9', resume: 'platform-tui upload . q --chat chat_9'});
		expect(out.writes).toHaveLength(1);
		expect(errorLine.parse(out.lines()[0])).toMatchObject({chatId: 'chat_9', chatIds: ['chat_9'], contentIds: [], eventIds: []});
		expect(Object.keys(out.lines()[0] ?? {})).toEqual(['type', 'code', 'message', 'next', 'chatId', 'resume', 'chatIds', 'contentIds', 'eventIds']);
	});

	it('coalesces: lines printed while coalescing are one write, at the latest when it is released or the run ends', () => {
		const out = recordingStream();
		const writer = createJsonWriter(out.stream);
		const release = writer.coalesce(60_000);
		writer.print({type: 'path', path: '/a'});
		writer.print({type: 'path', path: '/b'});
		expect(out.writes).toEqual([]);
		release();
		expect(out.writes).toEqual(['{"type":"path","path":"/a"}\n{"type":"path","path":"/b"}\n']);
		writer.coalesce(60_000);
		writer.print({type: 'path', path: '/c'});
		writer.result('config path', 0);
		expect(out.writes).toHaveLength(2);
		expect(out.lines().map(line => line.type)).toEqual(['path', 'path', 'path', 'result']);
	});
});

describe('the plain writer', () => {
	it('prints the plain text of a record (a function only then), nothing for a record without one, and no last line', () => {
		const out = recordingStream();
		const writer = createPlainOutput(out.stream);
		let asked = 0;
		writer.print({type: 'path', path: '/a'}, '/a\n');
		writer.print({type: 'path', path: '/b'}, () => {
			asked++;
			return '/b\n';
		});
		writer.print({type: 'summary', notReplayable: 0});
		writer.touched({chatIds: ['chat_1']});
		writer.result('config path', 0);
		expect(out.writes.join('')).toBe('/a\n/b\n');
		expect(asked).toBe(1);
	});

	it('with --json a plain-text function is never called', () => {
		const writer = createJsonWriter(recordingStream().stream);
		writer.print({type: 'path', path: '/a'}, () => {
			throw new Error('called');
		});
	});
});

describe('the ids of a run are handed over, not read back', () => {
	it('a refused `chat <id> --json` names the chat on its error line', async () => {
		const result = await runCliInProcess(['chat', 'chat_known', '--json']);
		expect(result.code).toBe(1);
		const last = errorLine.parse(JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}'));
		expect(last.code).toBe('not-interactive');
		expect(last.chatIds).toEqual(['chat_known']);
	});
});
