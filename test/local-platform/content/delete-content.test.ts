/**
 * DELETE /content/{id}?chatId= on the local platform, in both answer modes: the answer is `{id}`,
 * the content leaves the content search and the search, its key can be uploaded afresh, and a
 * content of a chat is not found without that chat's id.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {answerModes} from '../../../source/local-platform/sparse.js';
import {PlatformApiError} from '../../../source/platform/errors.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';

describe.each(answerModes)('DELETE /content/{id} (%s answers)', answers => {
	let platform: TestPlatform | undefined;
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-delete-content-'));

	afterEach(async () => {
		await platform?.close();
		platform = undefined;
	});

	afterAll(() => {
		rmSync(folder, {recursive: true, force: true});
	});

	it('removes the content, its search hits and its key', async () => {
		platform = await startPlatform({answers});
		const client = platform.client({retries: 0});
		const {assistantId} = platform.platform;
		const chat = await client.createChat({title: 'Delete', assistantId});
		const other = await client.createChat({title: 'Other', assistantId});
		const input = {key: 'notes.txt', title: 'notes.txt', mimeType: 'text/plain'};
		const content = await client.upsertContent({input, chatId: chat.id});
		const bytes = Buffer.from('The zebra migration starts in July.\n');
		const filePath = path.join(folder, 'notes.txt');
		writeFileSync(filePath, bytes);
		await client.putBlob(content.writeUrl ?? '', {filePath, contentType: 'text/plain'});
		await client.finalizeContent({input: {...input, byteSize: bytes.length}, chatId: chat.id, ...(content.readUrl ? {fileUrl: content.readUrl} : {})});
		const state = async () => (await client.searchContent({where: {id: {equals: content.id}}, chatId: chat.id, includeFailedContent: true}))[0]?.ingestionState;
		await waitFor(state, {until: value => value === 'FINISHED', what: 'the content ingested'});
		const hits = async () => (await client.search({searchString: 'zebra migration', searchType: 'COMBINED', limit: 5, chatId: chat.id})) ?? [];
		expect(await hits()).not.toEqual([]);

		// Another chat's id does not find it.
		const wrongChat = await client.deleteContent(content.id, other.id).catch((error: unknown) => error);
		expect(wrongChat).toBeInstanceOf(PlatformApiError);
		expect((wrongChat as PlatformApiError).status).toBe(404);

		await expect(client.deleteContent(content.id, chat.id)).resolves.toEqual({id: content.id});
		expect(await state()).toBeUndefined();
		expect(await hits()).toEqual([]);
		const again = await client.deleteContent(content.id, chat.id).catch((error: unknown) => error);
		expect((again as PlatformApiError).status).toBe(404);

		// The key is free: an upsert creates a new content.
		const fresh = await client.upsertContent({input, chatId: chat.id});
		expect(fresh.id).not.toBe(content.id);
		await client.close();
	});
});
