import {symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {defaultIngestionTimeoutMs, runUpload} from '../../source/workflow/run-upload.js';
import {selectFiles} from '../../source/workflow/select.js';
import {defined} from '../support/defined.js';
import {recorder} from './helpers.js';
import {bodyOf, isFinalize, isPut, isUpsert, platform, uploadPlatform} from './run-upload-support.js';

const docs = {
	'faq.md': '# FAQ\n\nThe Aurora Mini tilts 90 degrees for ceiling projection.\n',
	'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty from the date of purchase.\n',
	'pricing.csv': 'edition,price_usd\nStandard,349\nPlus,429\n',
};

describe('runUpload against the local platform', () => {
	const {folder, options, since} = uploadPlatform();

	it('runs the whole workflow: space, chat, upload, ingestion, reply and history', async () => {
		const dir = folder(docs);
		const start = platform.requests.length;
		const {events, onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: dir}), onEvent);

		// Events arrive in workflow order and end with the result.
		const order = ['files-listed', 'space-loaded', 'chat-creating', 'chat-created', 'upload-complete', 'ingestion-started', 'ingestion-complete', 'message-sent', 'reply-complete', 'history', 'result'];
		const positions = order.map(type => events.findIndex(event => event.type === type));
		expect(positions.every(position => position >= 0)).toBe(true);
		expect([...positions].sort((a, b) => a - b)).toEqual(positions);
		expect(events.at(-1)).toEqual({type: 'result', chatId: result.chatId, contentIds: result.contentIds, reply: result.reply, failed: []});

		// Space: name, languageModel, chatUpload and module names.
		expect(ofType('space-loaded')[0]?.space).toEqual({id: platform.assistantId, name: 'Local Assistant', languageModel: 'AZURE_GPT_4o_2024_1120', chatUpload: 'ENABLED', modules: ['DocumentSearch']});

		const requests = since(start);
		// The chat: default title and the assistant id.
		const chatCall = requests.find(record => record.method === 'POST' && record.path === '/space/chat');
		expect(bodyOf(defined(chatCall))).toEqual({title: 'Folder upload session', assistantId: platform.assistantId});
		expect(result.chatId).toMatch(/^chat_/);

		// Each file: upsert without ingestion configuration, streamed PUT with the headers, finalize.
		const names = ['faq.md', 'pricing.csv', 'warranty.txt'];
		const mimes = {'faq.md': 'text/markdown', 'pricing.csv': 'text/csv', 'warranty.txt': 'text/plain'};
		expect(result.files.map(file => file.name)).toEqual(names);
		for (const [index, name] of names.entries()) {
			const contentId = defined(result.contentIds[index]);
			const upserts = requests.filter(record => isUpsert(record) && bodyOf(record).input?.key === name);
			expect(upserts).toHaveLength(2);
			expect(bodyOf(defined(upserts[0]))).toEqual({input: {key: name, title: name, mimeType: mimes[name as keyof typeof mimes]}, chatId: result.chatId});
			const finalize = bodyOf(defined(upserts[1]));
			expect(finalize.input).toEqual({key: name, title: name, mimeType: mimes[name as keyof typeof mimes], byteSize: Buffer.byteLength(docs[name as keyof typeof docs])});
			expect(finalize.chatId).toBe(result.chatId);
			expect(new URL(String(finalize.fileUrl)).pathname).toBe(`/blob/${contentId}`);
			expect(new URL(String(finalize.fileUrl)).searchParams.get('sp')).toBe('r');
			expect(finalize).not.toHaveProperty('ingestionConfig');
			const put = defined(requests.find(record => isPut(record) && record.path === `/blob/${contentId}`));
			expect(put.headers['content-type']).toBe(mimes[name as keyof typeof mimes]);
			expect(put.headers['x-ms-blob-type']).toBe('BlockBlob');
			expect(put.headers['content-length']).toBe(String(Buffer.byteLength(docs[name as keyof typeof docs])));
			expect(put.headers.authorization).toBeUndefined();
			expect(put.status).toBe(201);
			expect(platform.content(contentId)?.ingestionState).toBe('FINISHED');
		}

		// Ingestion: searched by id, with failed content included, in the chat.
		const searches = requests.filter(record => record.path === '/content/search');
		expect(searches.length).toBeGreaterThanOrEqual(3);
		for (const search of searches) {
			expect(bodyOf(search)).toEqual({where: {id: {equals: expect.stringMatching(/^cont_/) as unknown}}, chatId: result.chatId, includeFailedContent: true});
		}

		expect(ofType('ingestion-started')[0]).toEqual({type: 'ingestion-started', total: 3, timeoutMs: 100_000});
		expect(ofType('ingestion-state').filter(event => event.final).map(event => [event.name, event.state]).sort()).toEqual(names.map(name => [name, 'FINISHED']));
		const lastRound = defined(ofType('ingestion-round').at(-1));
		expect(lastRound).toMatchObject({finished: 3, total: 3, pending: []});

		// The message, the reply and the history.
		const message = defined(requests.find(record => record.path === '/space/message'));
		expect(bodyOf(message)).toMatchObject({assistantId: platform.assistantId, chatId: result.chatId, text: 'How long is the warranty?'});
		expect(result.reply).toContain('two-year limited warranty');
		expect(result.history).toEqual([
			{role: 'USER', text: 'How long is the warranty?'},
			{role: 'ASSISTANT', text: result.reply},
		]);
		expect(ofType('history')[0]?.messages).toEqual(result.history);
		expect(requests.some(record => record.method === 'GET' && record.path === `/space/chat/${result.chatId}/messages`)).toBe(true);
	});

	it('uses --title and reports byte progress for every file', async () => {
		const dir = folder({'big.bin': Buffer.alloc(600 * 1024, 1)});
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: dir, title: 'Quarterly review', progressIntervalMs: 0}), onEvent);
		const chat = platform.requests.find(record => record.path === '/space/chat' && bodyOf(record).title === 'Quarterly review');
		expect(chat).toBeDefined();
		expect(ofType('chat-created')[0]).toMatchObject({chatId: result.chatId, title: 'Quarterly review'});
		const progress = ofType('file-progress');
		expect(progress.length).toBeGreaterThan(2);
		expect(progress.at(-1)).toMatchObject({name: 'big.bin', sentBytes: 600 * 1024, totalBytes: 600 * 1024});
		const sent = progress.map(event => event.sentBytes);
		expect([...sent].sort((a, b) => a - b)).toEqual(sent);
		// application/octet-stream for an unknown type; the default deadline for one file is 60 s.
		expect(ofType('files-listed')[0]?.files).toEqual([{name: 'big.bin', size: 600 * 1024, mimeType: 'application/octet-stream'}]);
		expect(ofType('ingestion-started')[0]?.timeoutMs).toBe(60_000);
	});

	it('uploads regular files only, skipping dot files and folders, in code-point order, strictly one after another with concurrency 1', async () => {
		const dir = folder({
			'b.txt': 'b', 'B.txt': 'B', '_x.txt': 'x', 'é.txt': 'e', '10.txt': 'ten', '9.txt': 'nine', 'Zeta.md': 'z',
			'.hidden.txt': 'secret', '.git/': '', 'sub/': '', 'noext': 'raw bytes',
		});
		writeFileSync(path.join(dir, 'sub', 'inner.txt'), 'not uploaded');
		symlinkSync(path.join(dir, 'b.txt'), path.join(dir, 'link.txt'));
		symlinkSync(path.join(dir, 'sub'), path.join(dir, 'linkdir'));
		const latency = 15;
		platform.setFaults({latencyMs: latency});
		const start = platform.requests.length;
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: dir, concurrency: 1}), onEvent);
		const expected = ['10.txt', '9.txt', 'B.txt', 'Zeta.md', '_x.txt', 'b.txt', 'link.txt', 'noext', 'é.txt'];
		expect(result.files.map(file => file.name)).toEqual(expected);
		expect(ofType('files-listed')[0]?.files.find(file => file.name === 'noext')?.mimeType).toBe('application/octet-stream');
		expect(ofType('files-listed')[0]?.files.find(file => file.name === 'Zeta.md')?.mimeType).toBe('text/markdown');

		// Upload phase, as the platform saw it: upsert, PUT, finalize for each file in turn.
		const upload = since(start).filter(record => isUpsert(record) || isPut(record));
		const seen = upload.map(record => {
			if (isPut(record)) {
				const contentId = record.path.slice('/blob/'.length);
				return `put ${result.files[result.contentIds.indexOf(contentId)]?.name}`;
			}

			return `${isFinalize(record) ? 'finalize' : 'upsert'} ${String(bodyOf(record).input?.key)}`;
		});
		expect(seen).toEqual(expected.flatMap(name => [`upsert ${name}`, `put ${name}`, `finalize ${name}`]));
		// No request of the upload phase starts before the previous one has been answered. The
		// platform holds every answer `latency` ms after the request arrived, so a request sent only
		// once the previous answer came in arrives at least that long after the previous one; two
		// requests in flight at once would arrive closer (2 ms of slack for timers and rounding).
		for (let index = 1; index < upload.length; index++) {
			expect(Date.parse(defined(upload[index]).at)).toBeGreaterThanOrEqual(Date.parse(defined(upload[index - 1]).at) + latency - 2);
		}
	});

	it('overlaps transfers up to --concurrency and starts upserts in name order', async () => {
		const files = Object.fromEntries(Array.from({length: 8}, (_, index) => [`file-${index}.txt`, `content number ${index}`]));
		const dir = folder(files);
		// Long enough that a request's recorded end, which on a loaded machine can come some ms after
		// the client has read the answer and started the next request, stays far from the middles.
		platform.setFaults({latencyMs: 200});
		const start = platform.requests.length;
		const result = await runUpload(options({folder: dir, concurrency: 4}));
		platform.setFaults({latencyMs: 0});
		const upload = since(start).filter(record => isUpsert(record) || isPut(record));
		expect(upload).toHaveLength(24);
		// Requests in flight at the middle of each request (robust to millisecond rounding).
		const spans = upload.map(record => ({start: Date.parse(record.at), end: Date.parse(record.at) + record.durationMs}));
		const inFlight = spans.map(span => {
			const middle = (span.start + span.end) / 2;
			return spans.filter(other => other.start <= middle && middle <= other.end).length;
		});
		expect(Math.max(...inFlight)).toBeGreaterThan(1);
		expect(Math.max(...inFlight)).toBeLessThanOrEqual(4);
		// The first upserts cover the first four names; every name's upsert comes before its finalize.
		const firstUpserts = upload.filter(record => isUpsert(record) && !isFinalize(record)).map(record => String(bodyOf(record).input?.key));
		expect(new Set(firstUpserts.slice(0, 4))).toEqual(new Set(['file-0.txt', 'file-1.txt', 'file-2.txt', 'file-3.txt']));
		expect(result.contentIds).toHaveLength(8);
	});

	it('takes the listing its caller made instead of reading the folder again', async () => {
		const dir = folder(docs);
		const listing = await selectFiles(dir);
		// A file that appears after the caller listed the folder is not part of this run.
		writeFileSync(path.join(dir, 'late.txt'), 'Added after the listing.\n');
		const start = platform.requests.length;
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: dir, listing}), onEvent);
		expect(result.files.map(file => file.name)).toEqual(['faq.md', 'pricing.csv', 'warranty.txt']);
		expect(ofType('files-listed')[0]?.files.map(file => file.name)).toEqual(['faq.md', 'pricing.csv', 'warranty.txt']);
		expect(since(start).filter(isUpsert).map(record => bodyOf(record).input?.key)).not.toContain('late.txt');
	});
});

describe('defaultIngestionTimeoutMs', () => {
	it('is min(60 + 20 × max(N − 1, 0), 120) seconds', () => {
		expect([0, 1, 2, 3, 4, 5, 200].map(count => defaultIngestionTimeoutMs(count))).toEqual([60_000, 60_000, 80_000, 100_000, 120_000, 120_000, 120_000]);
	});
});
