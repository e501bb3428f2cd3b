import {stat} from 'node:fs/promises';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ManualClock, type LocalPlatform, type LocalPlatformEvent} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import type {SearchResult} from '../../../source/local-platform/records.js';
import type {Content, ContentState, SearchRequest} from '../../../source/platform/types.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {defined} from '../../support/defined.js';
import {authHeaders, buildPdf, tempDir, type TempDir} from '../helpers.js';

const lighthouse = [
	'# The harbour lighthouse',
	'',
	'The harbour lighthouse was built in 1871 by the harbour board.',
	'Its lamp is visible from 22 nautical miles away.',
	'',
	'The keeper, Ada Lovelace, lives in the white cottage next to the tower.',
].join('\n');

const finished = (state: string | undefined) => state === 'FINISHED' || (state?.startsWith('FAILED') ?? false);

async function upload(client: PlatformClient, chatId: string, filePath: string, key: string, mimeType: string): Promise<Content> {
	const input = {key, title: key, mimeType};
	const created = await client.upsertContent({input, chatId});
	expect(created.writeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/blob\/cont_/);
	await client.putBlob(defined(created.writeUrl), {filePath, contentType: mimeType});
	const {size} = await stat(filePath);
	await client.finalizeContent({input: {...input, byteSize: size}, chatId, fileUrl: defined(created.readUrl)});
	return created;
}

async function waitForIngestion(client: PlatformClient, chatId: string, id: string): Promise<ContentState> {
	const [content] = await waitFor(async () => client.searchContent({where: {id: {equals: id}}, chatId, includeFailedContent: true}), {until: result => finished(result[0]?.ingestionState)});
	return defined(content);
}

/** The local platform answers with whole search results (the client reads only `text`). */
async function search(client: PlatformClient, request: SearchRequest): Promise<SearchResult[]> {
	return (await client.search(request) ?? []) as SearchResult[];
}

describe('content upload, ingestion and search', () => {
	let platform: LocalPlatform;
	let client: PlatformClient;
	let files: TempDir;
	let chatId: string;

	beforeAll(async () => {
		platform = (await startPlatform({ingestionStepMs: 5})).platform;
		client = clientFor(platform);
		files = await tempDir();
		chatId = (await client.createChat({title: 'Uploads', assistantId: platform.assistantId})).id;
		const lighthouseFile = await upload(client, chatId, await files.file('lighthouse.md', lighthouse), 'lighthouse.md', 'text/markdown');
		await waitForIngestion(client, chatId, lighthouseFile.id);
	});

	afterAll(async () => {
		await client.close();
		await platform.close();
		await files.remove();
	});

	it('runs the full chat upload: upsert, PUT, finalize, every ingestion state, content search', async () => {
		// Each ingestion state lasts 150 ms of a manual clock: the test moves time one step at a
		// time and reads the state in between, so it sees every one of them without sleeping.
		const events: LocalPlatformEvent[] = [];
		const clock = new ManualClock();
		const slow = (await startPlatform({ingestionStepMs: 150, clock, log: event => events.push(event)})).platform;
		const slowClient = clientFor(slow);
		try {
			const slowChatId = (await slowClient.createChat({title: 'Uploads', assistantId: slow.assistantId})).id;
			const filePath = await files.file('lighthouse.md', lighthouse);
			const input = {key: 'lighthouse.md', title: 'lighthouse.md', mimeType: 'text/markdown'};
			const created = await slowClient.upsertContent({input, chatId: slowChatId});
			expect(created).toMatchObject({key: 'lighthouse.md', title: 'lighthouse.md', mimeType: 'text/markdown', ingestionState: 'QUEUED'});
			expect(created.id).toMatch(/^cont_[a-z\d]{24}$/);
			expect(created.readUrl).toContain(`/blob/${created.id}?`);

			await slowClient.putBlob(defined(created.writeUrl), {filePath, contentType: 'text/markdown'});
			const size = Buffer.byteLength(lighthouse);
			const finalize = {input: {...input, byteSize: size}, chatId: slowChatId, fileUrl: defined(created.readUrl)};
			const finalized = await slowClient.upsertContent(finalize);
			// The finalize upsert is idempotent: again, same record, ingestion not restarted.
			const again = await slowClient.upsertContent(finalize);
			expect(again.id).toBe(created.id);
			expect(finalized.byteSize).toBe(size);

			const state = async (): Promise<string | undefined> => {
				const [content] = await slowClient.searchContent({where: {id: {equals: created.id}}, chatId: slowChatId, includeFailedContent: true});
				return content?.ingestionState;
			};

			const seen: string[] = [];
			for (let step = 0; step < 10; step++) {
				const current = await state();
				if (current !== undefined && seen.at(-1) !== current) {
					seen.push(current);
				}

				if (finished(current)) {
					break;
				}

				// The ingestion waits on the clock between states; move it on by one step.
				await waitFor(() => clock.pendingSleeps, {until: count => count > 0});
				clock.advance(150);
				await waitFor(state, {until: next => next !== current});
			}

			const allStates = ['QUEUED', 'INGESTION_READING', 'INGESTION_CHUNKING', 'INGESTION_EMBEDDING', 'FINISHED'];
			expect(seen).toEqual(allStates);
			expect(events.flatMap(event => (event.type === 'ingestion' && event.contentId === created.id ? [event.state] : []))).toEqual(allStates);

			// The read address serves the stored bytes without platform credentials.
			const blob = await fetch(defined(created.readUrl));
			expect(blob.status).toBe(200);
			expect(await blob.text()).toBe(lighthouse);

			// Content search: by id with `in`, and scoped to the chat.
			const byIn = await slowClient.searchContent({where: {id: {in: [created.id, 'cont_missing']}}, chatId: slowChatId, includeFailedContent: false});
			expect(byIn.map(content => content.id)).toEqual([created.id]);
			const otherChat = await slowClient.createChat({title: 'Other', assistantId: slow.assistantId});
			expect(await slowClient.searchContent({where: {id: {equals: created.id}}, chatId: otherChat.id, includeFailedContent: true})).toEqual([]);
			const [hit] = await slowClient.search({searchString: 'harbour lighthouse built', searchType: 'COMBINED', limit: 1, chatId: slowChatId}) ?? [];
			expect(hit).toMatchObject({id: created.id, key: 'lighthouse.md', order: 0});
		} finally {
			await slowClient.close();
			await slow.close();
		}
	});

	it('ends a corrupt PDF in FAILED_PARSING, hidden from content search without includeFailedContent', async () => {
		const filePath = await files.file('broken.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog >> this is not a PDF at all');
		const content = await upload(client, chatId, filePath, 'broken.pdf', 'application/pdf');
		const result = await waitForIngestion(client, chatId, content.id);
		expect(result.ingestionState).toBe('FAILED_PARSING');
		expect(result.ingestionError).toMatch(/PDF/);
		expect(await client.searchContent({where: {id: {equals: content.id}}, chatId, includeFailedContent: false})).toEqual([]);
	});

	it('extracts the text of a valid PDF page by page', async () => {
		const filePath = await files.file('tides.pdf', buildPdf([
			'High tide at the harbour is at 06:40 on Mondays.',
			'The ferry to the island leaves from pier seven.',
		]));
		const content = await upload(client, chatId, filePath, 'tides.pdf', 'application/pdf');
		expect((await waitForIngestion(client, chatId, content.id)).ingestionState).toBe('FINISHED');
		const [hit] = await search(client, {searchString: 'ferry island pier', searchType: 'COMBINED', limit: 1, chatId});
		expect(hit).toMatchObject({id: content.id, key: 'tides.pdf', title: 'tides.pdf', startPage: 2, endPage: 2});
		expect(hit?.text).toContain('The ferry to the island leaves from pier seven.');
	});

	it('extracts HTML, CSV and JSON, and finishes binary files without chunks', async () => {
		const html = await upload(client, chatId, await files.file('page.html', '<html><head><style>p{color:red}</style><script>var secretword = 1;</script></head><body><h1>Opening hours</h1><p>The museum opens at nine &amp; closes at five.</p></body></html>'), 'page.html', 'text/html');
		const csv = await upload(client, chatId, await files.file('staff.csv', 'name,role\n"Grace Hopper",admiral\nAlan Turing,"code, breaker"\n'), 'staff.csv', 'text/csv');
		const jsonContent = await upload(client, chatId, await files.file('boat.json', JSON.stringify({boat: {name: 'Skylark', length: 12}})), 'boat.json', 'application/json');
		const binary = await upload(client, chatId, await files.file('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0xff])), 'image.png', 'image/png');
		for (const content of [html, csv, jsonContent, binary]) {
			 
			expect((await waitForIngestion(client, chatId, content.id)).ingestionState).toBe('FINISHED');
		}

		const text = async (query: string) => (await search(client, {searchString: query, searchType: 'FULL_TEXT', limit: 5, chatId})).map(hit => hit.text);
		expect((await text('museum opens'))[0]).toBe('Opening hours\nThe museum opens at nine & closes at five.');
		expect(await text('secretword')).toEqual([]);
		expect((await text('admiral'))[0]).toContain('name: Grace Hopper; role: admiral');
		expect((await text('breaker'))[0]).toContain('role: code, breaker');
		expect((await text('Skylark'))[0]).toContain('boat.name: Skylark');
		expect(platform.content(binary.id)).toMatchObject({ingestionState: 'FINISHED', chunkCount: 0});
	});

	it('finds uploaded text, honours limit, keeps other chats out and accepts the three search types', async () => {
		const paragraphs = Array.from({length: 6}, (_, index) => `Buoy number ${index + 1} marks the channel, and every buoy is painted red.`);
		const content = await upload(client, chatId, await files.file('buoys.txt', paragraphs.join('\n\n')), 'buoys.txt', 'text/plain');
		expect((await waitForIngestion(client, chatId, content.id)).ingestionState).toBe('FINISHED');
		const all = await search(client, {searchString: 'buoy', searchType: 'COMBINED', limit: 10, chatId});
		expect(all.length).toBeGreaterThan(0);
		for (const result of all) {
			expect(Object.keys(result)).toEqual(expect.arrayContaining(['id', 'chunkId', 'text', 'key', 'title', 'url', 'order', 'startPage', 'endPage']));
		}

		const lighthouseHits = await search(client, {searchString: 'When was the lighthouse built?', searchType: 'COMBINED', limit: 3, chatId});
		expect(lighthouseHits[0]?.text).toContain('built in 1871');
		expect(lighthouseHits.length).toBeLessThanOrEqual(3);
		for (const searchType of ['FULL_TEXT', 'VECTOR'] as const) {
			 
			const hits = await search(client, {searchString: 'lighthouse keeper', searchType, limit: 1, chatId});
			expect(hits).toHaveLength(1);
		}

		// Chat uploads are private to their chat.
		const otherChat = await client.createChat({title: 'Elsewhere', assistantId: platform.assistantId});
		expect(await search(client, {searchString: 'lighthouse', searchType: 'COMBINED', limit: 5, chatId: otherChat.id})).toEqual([]);
		expect(await search(client, {searchString: 'lighthouse', searchType: 'COMBINED', limit: 5})).toEqual([]);

		const bad = await fetch(`${platform.baseUrl}/search/search`, {
			method: 'POST',
			headers: authHeaders(platform),
			body: JSON.stringify({searchString: 'x', searchType: 'SEMANTIC', limit: 1}),
		});
		expect(bad.status).toBe(400);
		expect(((await bad.json()) as {error: {message: string}}).error.message).toMatch(/searchType/);
	});

	it('searches company-wide content from every chat, and many chunks are limited', async () => {
		const long = Array.from({length: 40}, (_, index) => `Paragraph ${index}: the quarry granite was shipped by rail in crates.`).join('\n\n');
		const filePath = await files.file('granite.txt', long);
		const created = await client.upsertContent({input: {key: 'granite.txt', title: 'granite.txt', mimeType: 'text/plain'}});
		await client.putBlob(defined(created.writeUrl), {filePath, contentType: 'text/plain'});
		await client.finalizeContent({input: {key: 'granite.txt', title: 'granite.txt', mimeType: 'text/plain', byteSize: Buffer.byteLength(long)}, fileUrl: defined(created.readUrl)});
		await waitFor(() => platform.content(created.id)?.ingestionState, {until: state => state === 'FINISHED'});
		expect(platform.content(created.id)?.chunkCount).toBeGreaterThan(2);
		expect(await search(client, {searchString: 'granite quarry', searchType: 'COMBINED', limit: 2, chatId})).toHaveLength(2);
		expect(await search(client, {searchString: 'granite quarry', searchType: 'COMBINED', limit: 1})).toHaveLength(1);
	});

	it('guards the blob host: pre-signed tokens, BlockBlob header, Content-Length and the size limit', async () => {
		const small = (await startPlatform({limits: {maxBlobBytes: 16}})).platform;
		try {
			const smallClient = clientFor(small);
			const chat = await smallClient.createChat({title: 'Blobs', assistantId: small.assistantId});
			const content = await smallClient.upsertContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: chat.id});
			const writeUrl = new URL(defined(content.writeUrl));
			const put = async (url: string, body: string, headers: Record<string, string> = {'x-ms-blob-type': 'BlockBlob'}) => fetch(url, {method: 'PUT', body, headers: {'content-type': 'text/plain', ...headers}});
			const wrongToken = new URL(writeUrl);
			wrongToken.searchParams.set('token', 'nope');
			expect((await put(wrongToken.href, 'hello')).status).toBe(403);
			expect((await put(defined(content.readUrl), 'hello')).status).toBe(403);
			expect((await put(writeUrl.href, 'hello', {})).status).toBe(400);
			const tooLarge = await put(writeUrl.href, 'x'.repeat(17));
			expect(tooLarge.status).toBe(413);
			expect(tooLarge.headers.get('request-id')).toMatch(/^req_/);
			expect((await fetch(defined(content.readUrl))).status).toBe(404);
			expect((await put(writeUrl.href, 'sixteen bytes ok')).status).toBe(201);
			expect(await (await fetch(defined(content.readUrl))).text()).toBe('sixteen bytes ok');
			await smallClient.close();
		} finally {
			await small.close();
		}

		// The temporary blob directory is gone after close.
		await expect(stat(small.blobDirectory)).rejects.toThrow();
	});
});
