import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {CancelledError} from '../../source/errors.js';
import {BlobUploadError, MissingWriteUrlError, NoFilesFoundError, NotADirectoryError} from '../../source/workflow/errors.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import {defined} from '../support/defined.js';
import {waitFor} from '../support/wait.js';
import {recorder, startProxy, type TestProxy, upsertKey} from './helpers.js';
import {type Body, isUpsert, platform, said, uploadPlatform} from './run-upload-support.js';

describe('runUpload against the local platform', () => {
	const {cleanups, folder, options, since} = uploadPlatform();

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
