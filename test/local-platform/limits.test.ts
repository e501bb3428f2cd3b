/**
 * The local platform stays as light as a stand-in should be (issue 43.6): uploaded bytes live on
 * disk, extraction, chunking and indexing read a bounded prefix, a search takes a bounded number
 * of words, and a question is either answered or refused in one sentence naming the limit. The
 * figures on a 200 MB file are in `npm run bench -- local`.
 */
import {readdir, readFile, stat} from 'node:fs/promises';
import {request} from 'node:http';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {chunkPages} from '../../source/local-platform/content/chunk.js';
import {extractFile} from '../../source/local-platform/content/extract.js';
import {defaultLimits, type LocalPlatform} from '../../source/local-platform/index.js';
import {ChunkIndex, type IndexedChunk} from '../../source/local-platform/content/search-index.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runCliInProcess} from '../support/run-cli.js';
import {waitFor} from '../support/wait.js';
import {defined} from '../support/defined.js';
import {tempDir, type TempDir} from './helpers.js';

const warranty = 'The warranty of the Aurora Mini lasts two years.\n\nIts battery lasts 2.5 hours of video playback.\n';

async function upload(client: PlatformClient, chatId: string, filePath: string, key: string): Promise<string> {
	const input = {key, title: key, mimeType: 'text/plain'};
	const created = await client.upsertContent({input, chatId});
	await client.putBlob(defined(created.writeUrl), {filePath, contentType: 'text/plain'});
	await client.finalizeContent({input: {...input, byteSize: (await stat(filePath)).size}, chatId, fileUrl: defined(created.readUrl)});
	return created.id;
}

function chunk(index: number, text: string): IndexedChunk {
	return {chunkId: `chunk_${index}`, contentId: 'cont_1', companyId: 'company_1', chatId: undefined, key: 'a.txt', title: 'a.txt', url: null, order: index, startPage: 1, endPage: 1, text};
}

describe('a local platform as light as a stand-in', () => {
	let platform: LocalPlatform;
	let client: PlatformClient;
	let files: TempDir;
	let chatId: string;
	let contentId: string;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		client = clientFor(platform);
		files = await tempDir();
		chatId = (await client.createChat({title: 'Light', assistantId: platform.assistantId})).id;
		contentId = await upload(client, chatId, await files.file('warranty.txt', warranty), 'warranty.txt');
		await waitFor(() => platform.content(contentId)?.ingestionState, {until: state => state === 'FINISHED'});
	});

	afterAll(async () => {
		await client.close();
		await platform.close();
		await files.remove();
	});

	it('keeps uploaded bytes in a private folder on disk (0700, files 0600) and only their size in memory', async () => {
		const blobPath = path.join(platform.blobDirectory, `${contentId}.blob`);
		expect(await readFile(blobPath, 'utf8')).toBe(warranty);
		expect((await stat(blobPath)).mode & 0o777).toBe(0o600);
		expect((await stat(platform.blobDirectory)).mode & 0o777).toBe(0o700);
		const record = defined(platform.content(contentId));
		expect(record.byteSize).toBe(Buffer.byteLength(warranty));
		expect(Object.values(record).filter(value => value instanceof Uint8Array)).toEqual([]);
	});

	it('drops the part file of an upload whose client left mid-body, and goes on serving', async () => {
		const content = await client.upsertContent({input: {key: 'left.txt', title: 'left.txt', mimeType: 'text/plain'}, chatId});
		const put = request(defined(content.writeUrl), {method: 'PUT', headers: {'content-type': 'text/plain', 'content-length': String(1024 * 1024), 'x-ms-blob-type': 'BlockBlob'}});
		put.on('error', () => undefined);
		const sent = new Promise<void>(resolve => {
			put.write(Buffer.alloc(64 * 1024, 'a'), () => {
				resolve();
			});
		});
		await sent;
		await waitFor(async () => readdir(platform.blobDirectory), {until: names => names.some(name => name.endsWith('.part'))});
		put.destroy();
		await waitFor(async () => readdir(platform.blobDirectory), {until: names => !names.some(name => name.endsWith('.part'))});
		expect(platform.content(content.id)?.byteSize ?? null).toBeNull();
		expect((await fetch(`${platform.baseUrl}/health`)).status).toBe(200);
	});

	it('removes the blob folder when the platform stops', async () => {
		const other = (await startPlatform()).platform;
		const otherClient = clientFor(other);
		const otherChat = await otherClient.createChat({title: 'Gone', assistantId: other.assistantId});
		await upload(otherClient, otherChat.id, await files.file('gone.txt', warranty), 'gone.txt');
		const folder = other.blobDirectory;
		await otherClient.close();
		await other.close();
		await expect(stat(folder)).rejects.toMatchObject({code: 'ENOENT'});
	});

	it('answers a question of 1 000 characters', async () => {
		const question = 'How long does the battery of the Aurora Mini last, and how long is its warranty? '.repeat(13).slice(0, 1000);
		await client.createSpaceMessage({assistantId: platform.assistantId, chatId, text: question});
		const answer = await waitFor(async () => client.getLatestMessage(chatId), {until: message => message.role === 'ASSISTANT' && message.stoppedStreamingAt !== null});
		expect(answer.text).not.toBe(apologyText);
		expect(answer.text).toMatch(/^\(local model\) .*(two years|2\.5 hours)/);
	});

	it('refuses a question over the limit: `chat` exits 1 with one sentence naming it, and nothing is stored', async () => {
		const before = (await client.getChatMessages(chatId)).totalCount;
		const question = 'Why? '.repeat(Math.ceil((defaultLimits.maxMessageChars + 1) / 5)).slice(0, defaultLimits.maxMessageChars + 1);
		const result = await runCliInProcess(['chat', chatId, question, '--poll-interval', '0.02'], {env: platformEnv(platform)});
		expect(result.code, result.stderr).toBe(1);
		const lines = result.stderr.trim().split('\n');
		expect(lines, result.stderr).toHaveLength(1);
		expect(lines[0]).toContain(`has ${defaultLimits.maxMessageChars + 1} characters; the local platform accepts at most ${defaultLimits.maxMessageChars}`);
		expect(result.stderr).not.toMatch(/\n\s+at /);
		expect((await client.getChatMessages(chatId)).totalCount).toBe(before);
	});

	it('searches the first distinct words of a question, each once, so a long question costs what a short one does', () => {
		const index = new ChunkIndex(4);
		index.replaceContent('cont_1', [chunk(0, 'The harbour lighthouse was built in 1871.'), chunk(1, 'The keeper lives in the white cottage.')]);
		const scope = {companyId: 'company_1', limit: 5, searchType: 'COMBINED' as const};
		const long = 'When was the lighthouse built? '.repeat(1000);
		expect(index.search(long, scope).map(hit => hit.chunkId)).toEqual(['chunk_0']);
		// "cottage" is the fifth distinct word: beyond the limit of four, it is not searched.
		expect(index.search('harbour lighthouse built 1871 cottage', scope).map(hit => hit.chunkId)).toEqual(['chunk_0']);
		expect(index.search('cottage', scope).map(hit => hit.chunkId)).toEqual(['chunk_1']);
	});

	it('reads only the first maxTextBytes of a big text file and stops chunking at maxChunks', async () => {
		const line = 'The quarry granite was shipped by rail in crates of twelve.\n\n';
		const big = await files.file('big.txt', line.repeat(Math.ceil((defaultLimits.maxTextBytes + (256 * 1024)) / line.length)));
		const extraction = await extractFile(big, 'text/plain', (await stat(big)).size);
		expect(extraction.truncated).toBe(true);
		const text = extraction.pages.map(page => page.text).join('');
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(defaultLimits.maxTextBytes);
		expect(chunkPages(extraction.pages, {maxChunks: 3})).toHaveLength(3);
	});

	it('indexes at most maxChunksPerContent chunks of a file, the rest of it unsearchable', async () => {
		const small = (await startPlatform({limits: {maxTextBytes: 4096, maxChunksPerContent: 2}})).platform;
		const smallClient = clientFor(small);
		try {
			const chat = await smallClient.createChat({title: 'Bounded', assistantId: small.assistantId});
			const paragraphs = Array.from({length: 200}, (_, index) => `Paragraph ${index} says the word ${index === 199 ? 'zeppelin' : 'granite'} ${'and more words '.repeat(60)}`);
			const id = await upload(smallClient, chat.id, await files.file('long.txt', paragraphs.join('\n\n')), 'long.txt');
			await waitFor(() => small.content(id)?.ingestionState, {until: state => state === 'FINISHED'});
			expect(small.content(id)?.chunkCount).toBe(2);
			expect(await smallClient.search({searchString: 'zeppelin', searchType: 'FULL_TEXT', limit: 5, chatId: chat.id})).toEqual([]);
		} finally {
			await smallClient.close();
			await small.close();
		}
	});
});
