import {symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import {CancelledError} from '../../source/errors.js';
import type {LocalPlatform, RequestRecord} from '../../source/local-platform/index.js';
import {BlobUploadError, IngestionFailedError, IngestionTimeoutError, MissingWriteUrlError, NoFilesFoundError, NotADirectoryError, ReplyTimeoutError} from '../../source/workflow/errors.js';
import {defaultIngestionTimeoutMs, runUpload, type UploadOptions} from '../../source/workflow/run-upload.js';
import {selectFiles} from '../../source/workflow/select.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {
	makeFolder,
	patchMessage,
	recorder,
	startModule,
	startProxy,
	type TestProxy,
	upsertKey,
} from './helpers.js';

const docs = {
	'faq.md': '# FAQ\n\nThe Aurora Mini tilts 90 degrees for ceiling projection.\n',
	'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty from the date of purchase.\n',
	'pricing.csv': 'edition,price_usd\nStandard,349\nPlus,429\n',
};

type Body = Record<string, unknown> & {input?: Record<string, unknown>};

const bodyOf = (record: RequestRecord): Body => (record.body ?? {}) as Body;
const isUpsert = (record: RequestRecord): boolean => record.method === 'POST' && record.path === '/content/upsert';
const isPut = (record: RequestRecord): boolean => record.method === 'PUT' && record.path.startsWith('/blob/');
const isFinalize = (record: RequestRecord): boolean => isUpsert(record) && bodyOf(record).fileUrl !== undefined;

/** The sentence the CLI prints for an error (the wording lives in source/cli/messages/workflow.ts). */
function said(error: unknown): string {
	return joinText(describeError(error));
}

describe('runUpload against the local platform', () => {
	let platform: LocalPlatform;
	const cleanups: Array<() => void | Promise<void>> = [];

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterEach(async () => {
		platform.setWebhookUrl();
		platform.setFaults({latencyMs: 0});
		for (const cleanup of cleanups.splice(0).reverse()) {
			await cleanup();
		}
	});

	afterAll(async () => {
		await platform.close();
	});

	function folder(files: Record<string, string | Buffer>): string {
		const made = makeFolder(files);
		cleanups.push(made.cleanup);
		return made.dir;
	}

	function options(extra: Partial<UploadOptions> & {folder: string}, baseUrl?: string): UploadOptions {
		const client = clientFor(platform, baseUrl === undefined ? {} : {baseUrl});
		cleanups.push(async () => client.close());
		return {client, assistantId: platform.assistantId, prompt: 'How long is the warranty?', pollIntervalMs: 10, ...extra};
	}

	/** Requests the platform received since `from` (an index into its request log). */
	const since = (from: number): RequestRecord[] => platform.requests.slice(from);

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

	it('warns and goes on when the space cannot be loaded', async () => {
		const proxy = await startProxy(platform, {
			answer: call => (call.method === 'GET' && call.path.startsWith('/space/assistant_') ? {status: 404, body: {error: {message: 'Space not visible to this key'}}} : undefined),
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: folder({'a.txt': 'the warranty lasts two years'})}, proxy.url), onEvent);
		expect(ofType('space-loaded')).toHaveLength(0);
		expect(ofType('space-warning')[0]?.message).toMatch(new RegExp(`Could not load space ${platform.assistantId}: .*HTTP 404: Space not visible to this key; going on without it`));
		expect(result.reply).not.toBe('');
	});

	it('stops, before sending a file, when the key is refused (HTTP 401) while the space loads', async () => {
		const proxy = await startProxy(platform, {
			answer: call => (call.method === 'GET' && call.path.startsWith('/space/assistant_') ? {status: 401, body: {error: {message: 'Invalid API key'}}} : undefined),
		});
		cleanups.push(async () => proxy.close());
		const start = platform.requests.length;
		const {onEvent, ofType} = recorder();
		const error = await runUpload(options({folder: folder({'a.txt': 'the warranty lasts two years'})}, proxy.url), onEvent).then(() => undefined, (caught: unknown) => caught);
		expect((error as {code?: string} | undefined)?.code).toBe('platform-unauthorized');
		expect(ofType('space-warning')).toHaveLength(0);
		expect(since(start).filter(isUpsert)).toEqual([]);
	});

	it('fails with a not-a-directory error naming the path, before creating anything', async () => {
		const dir = folder({'a.txt': 'a'});
		const file = path.join(dir, 'a.txt');
		const missing = path.join(dir, 'nope');
		const start = platform.requests.length;
		await expect(runUpload(options({folder: file}))).rejects.toThrow(new NotADirectoryError(file, 'not-a-directory'));
		await expect(runUpload(options({folder: file}))).rejects.toThrow(`Not a directory: ${file} is a file`);
		await expect(runUpload(options({folder: missing}))).rejects.toThrow(`Not a directory: ${missing} does not exist`);
		expect(since(start)).toHaveLength(0);
	});

	it('fails saying the folder has no files when nothing is eligible', async () => {
		const dir = folder({'.env': 'x', 'nested/': ''});
		writeFileSync(path.join(dir, 'nested', 'a.txt'), 'a');
		const error = await runUpload(options({folder: dir})).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(NoFilesFoundError);
		expect((error as Error).message).toBe(`${dir} has no files to upload`);
		expect(said(error)).toBe(`The folder ${dir} has no files to upload, so nothing was started. Only regular files whose names do not begin with a dot are uploaded.`);
		expect((error as NoFilesFoundError).code).toBe('folder-empty');
	});

	it('fails naming the file when the upsert answer has no writeUrl', async () => {
		const proxy = await startProxy(platform, {
			rewrite: (call, _status, body) => (upsertKey(call) === 'b.txt' ? {...(body as object), writeUrl: ''} : body),
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType} = recorder();
		const error = await runUpload(options({folder: folder({'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c'}), concurrency: 1}, proxy.url), onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(MissingWriteUrlError);
		const failed = defined(ofType('file-failed')[0]);
		expect((error as Error).message).toBe(`The platform returned no writeUrl for b.txt (content ${failed.contentId}), so its bytes cannot be uploaded`);
		expect(said(error)).toBe(`The platform returned no writeUrl for b.txt (content ${failed.contentId}), so its bytes cannot be uploaded. Check that the space allows chat uploads.`);
		expect(failed.name).toBe('b.txt');
		// The rest was not started.
		expect(ofType('file-upserted').map(event => event.name)).toEqual(['a.txt', 'b.txt']);
	});

	it('fails with the status and the file when the blob PUT is refused', async () => {
		const proxy = await startProxy(platform, {
			rewrite: (call, _status, body, proxyUrl) => (upsertKey(call) === 'b.txt' && !(call.body as Body).fileUrl ? {...(body as object), writeUrl: `${proxyUrl}/reject-blob/b?sig=x`} : body),
		});
		cleanups.push(async () => proxy.close());
		const error = await runUpload(options({folder: folder({'a.txt': 'a', 'b.txt': 'b'})}, proxy.url)).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(BlobUploadError);
		expect((error as BlobUploadError).status).toBe(403);
		expect((error as Error).message).toBe('Uploading b.txt failed: the blob store answered the PUT with HTTP 403 (Signature not valid for this blob)');
		expect(proxy.blobPuts).toEqual([{path: '/reject-blob/b', closedByClient: false}]);
	});

	it('aborts the transfers still in flight on the first error and starts no more', async () => {
		// b's PUT is refused only once a's PUT is on its way, so a is in flight when the run stops,
		// however the two transfers are scheduled on a loaded machine.
		const proxy: TestProxy = await startProxy(platform, {
			beforeReject: async () => proxy.arrived('/hang-blob/a'),
			rewrite(call, _status, body, proxyUrl) {
				const key = upsertKey(call);
				if ((call.body as Body | undefined)?.fileUrl) {
					return body;
				}

				if (key === 'a.txt') {
					return {...(body as object), writeUrl: `${proxyUrl}/hang-blob/a`};
				}

				return key === 'b.txt' ? {...(body as object), writeUrl: `${proxyUrl}/reject-blob/b`} : body;
			},
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType} = recorder();
		const dir = folder({'a.txt': 'a'.repeat(1000), 'b.txt': 'b', 'c.txt': 'c', 'd.txt': 'd'});
		const running = runUpload(options({folder: dir, concurrency: 2}, proxy.url), onEvent);
		const error = await running.catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(BlobUploadError);
		expect((error as Error).message).toContain('Uploading b.txt failed');
		await waitFor(() => proxy.blobPuts.find(put => put.path === '/hang-blob/a')?.closedByClient === true, {what: 'the hanging PUT to be aborted'});
		expect(ofType('file-upserted').map(event => event.name).sort()).toEqual(['a.txt', 'b.txt']);
		expect(ofType('file-failed').map(event => event.name)).toEqual(['b.txt']);
	});

	it('fails naming content id, file name and state when ingestion fails', async () => {
		const dir = folder({'broken.pdf': '%PDF-1.7\nthis is not really a pdf\n%%EOF\n', 'good.txt': 'fine text'});
		const {onEvent, ofType} = recorder();
		const error = await runUpload(options({folder: dir}), onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(IngestionFailedError);
		const uploaded = defined(ofType('file-upserted').find(event => event.name === 'broken.pdf'));
		expect((error as IngestionFailedError).contentId).toBe(uploaded.contentId);
		expect((error as Error).message).toBe(`Ingestion failed for content ${uploaded.contentId} (broken.pdf) with state FAILED_PARSING`);
		expect(said(error)).toBe(`Ingestion failed for content ${uploaded.contentId} (broken.pdf) with state FAILED_PARSING. Check that the file is readable and of a supported type, or pass --keep-going to ask about the other files.`);
		expect(ofType('ingestion-state').find(event => event.name === 'broken.pdf' && event.final)).toMatchObject({state: 'FAILED_PARSING', contentId: uploaded.contentId});
		expect(ofType('message-sent')).toHaveLength(0);
	});

	it('times out listing the pending content ids sorted', async () => {
		const slow = (await startPlatform({ingestionStepMs: 60_000})).platform;
		cleanups.push(async () => slow.close());
		const client = clientFor(slow);
		cleanups.push(async () => client.close());
		const {onEvent, ofType} = recorder();
		const dir = folder({'one.txt': '1', 'two.txt': '2', 'three.txt': '3'});
		const error = await runUpload({client, assistantId: slow.assistantId, folder: dir, prompt: 'q', pollIntervalMs: 20, ingestionTimeoutMs: 150}, onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(IngestionTimeoutError);
		const ids = ofType('file-upserted').map(event => event.contentId).sort();
		expect((error as IngestionTimeoutError).pending).toEqual(ids);
		expect((error as Error).message).toBe(`Ingestion timed out after 0.15 s with 3 contents pending: ${ids.join(', ')}`);
		expect(said(error)).toBe(`Ingestion timed out after 0.15 s with 3 contents pending: ${ids.join(', ')}. Raise --ingestion-timeout to wait longer, or pass --keep-going to ask about the files that finished.`);
		expect(ofType('ingestion-started')).toEqual([{type: 'ingestion-started', total: 3, timeoutMs: 150}]);
		// How many rounds fit in 150 ms depends on the machine (a loaded one may end the first round
		// at the deadline); every round that ended says all three were still pending.
		for (const round of ofType('ingestion-round')) {
			expect([...round.pending].sort()).toEqual(ids);
		}
	});

	it('skips empty search results and keeps waiting', async () => {
		let empties = 0;
		const proxy = await startProxy(platform, {
			answer(call) {
				if (call.path === '/content/search' && empties < 3) {
					empties++;
					return {status: 200, body: []};
				}

				return undefined;
			},
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: folder({'a.txt': 'warranty two years'})}, proxy.url), onEvent);
		expect(empties).toBe(3);
		expect(ofType('ingestion-round').length).toBeGreaterThanOrEqual(4);
		expect(ofType('ingestion-round').slice(0, 3).every(round => round.finished === 0)).toBe(true);
		expect(result.contentIds).toHaveLength(1);
	});

	it('times out naming the chat when the reply never completes', async () => {
		const module = await startModule();
		cleanups.push(async () => module.close());
		platform.setWebhookUrl(module.url);
		const {onEvent, ofType} = recorder();
		const error = await runUpload(options({folder: folder({'a.txt': 'a'}), replyTimeoutMs: 250}), onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(ReplyTimeoutError);
		const chatId = defined(ofType('chat-created')[0]).chatId;
		expect((error as Error).message).toBe(`Timed out after 0.25 s waiting for the assistant's reply in chat ${chatId}`);
		expect(said(error)).toBe(`Timed out after 0.25 s waiting for the assistant's reply in chat ${chatId}. Raise --reply-timeout to wait longer; the chat keeps the uploaded files.`);
		expect((error as ReplyTimeoutError).chatId).toBe(chatId);
		expect(module.events).toContain('platform.chat.external-module.chosen');
	});

	it('shows the reply as it grows and takes the final text once streaming stopped', async () => {
		let client: ReturnType<typeof clientFor> | undefined;
		const module = await startModule(async event => {
			const {chatid: chatId, assistantMessage} = event.payload;
			client ??= clientFor(platform);
			await client.modifyMessage(assistantMessage.id, {chatId, text: 'The warranty'});
			// Wait until the workflow has polled the partial text, then finish the message.
			const polledFrom = platform.requests.length;
			await waitFor(() => platform.requests.slice(polledFrom).some(record => record.path === `/space/${chatId}/messages/latest`), {what: 'a poll'});
			const at = new Date().toISOString();
			await client.modifyMessage(assistantMessage.id, {chatId, text: 'The warranty lasts two years.', stoppedStreamingAt: at, completedAt: at});
		});
		cleanups.push(async () => {
			await module.close();
			await client?.close();
		});
		platform.setWebhookUrl(module.url);
		const {events, onEvent} = recorder();
		const result = await runUpload(options({folder: folder({'a.txt': 'a'})}), onEvent);
		const replies = events.filter(event => event.type === 'reply-progress' || event.type === 'reply-complete');
		expect(replies.map(event => [event.type, 'text' in event ? event.text : ''])).toEqual([
			['reply-progress', 'The warranty'],
			['reply-complete', 'The warranty lasts two years.'],
		]);
		expect(result.reply).toBe('The warranty lasts two years.');
		expect(result.history.map(message => message.role)).toEqual(['USER', 'ASSISTANT']);
	});

	it('takes an empty reply when the finished message has no text', async () => {
		const module = await startModule(async event => {
			await patchMessage(platform, event.payload.assistantMessage.id, {chatId: event.payload.chatid, stoppedStreamingAt: new Date().toISOString()});
		});
		cleanups.push(async () => module.close());
		platform.setWebhookUrl(module.url);
		const result = await runUpload(options({folder: folder({'a.txt': 'a'})}));
		expect(result.reply).toBe('');
		expect(result.history).toEqual([{role: 'USER', text: 'How long is the warranty?'}, {role: 'ASSISTANT', text: ''}]);
	});

	it('cancels during the ingestion wait', async () => {
		const slow = (await startPlatform({ingestionStepMs: 60_000})).platform;
		cleanups.push(async () => slow.close());
		const client = clientFor(slow);
		cleanups.push(async () => client.close());
		const controller = new AbortController();
		const running = runUpload({client, assistantId: slow.assistantId, folder: folder({'a.txt': 'a'}), prompt: 'q', pollIntervalMs: 20, signal: controller.signal}, event => {
			if (event.type === 'ingestion-round') {
				controller.abort('SIGINT');
			}
		});
		await expect(running).rejects.toBeInstanceOf(CancelledError);
		expect(slow.requests.some(record => record.path === '/space/message')).toBe(false);
	});

	it('cancels a transfer in flight by aborting its request', async () => {
		const proxy = await startProxy(platform, {
			rewrite: (call, _status, body, proxyUrl) => (upsertKey(call) === 'a.txt' && !(call.body as Body).fileUrl ? {...(body as object), writeUrl: `${proxyUrl}/hang-blob/a`} : body),
		});
		cleanups.push(async () => proxy.close());
		const controller = new AbortController();
		const running = runUpload(options({folder: folder({'a.txt': 'a'}), signal: controller.signal}, proxy.url));
		await waitFor(() => proxy.blobPuts.length === 1, {what: 'the PUT to arrive'});
		controller.abort('SIGINT');
		await expect(running).rejects.toBeInstanceOf(CancelledError);
		await waitFor(() => proxy.blobPuts[0]?.closedByClient === true, {what: 'the PUT to be aborted'});
	});
});

describe('defaultIngestionTimeoutMs', () => {
	it('is min(60 + 20 × max(N − 1, 0), 120) seconds', () => {
		expect([0, 1, 2, 3, 4, 5, 200].map(count => defaultIngestionTimeoutMs(count))).toEqual([60_000, 60_000, 80_000, 100_000, 120_000, 120_000, 120_000]);
	});
});
