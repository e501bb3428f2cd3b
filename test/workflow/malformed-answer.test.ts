import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import uploadCommand from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {defined} from '../support/defined.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {makeFolder, startProxy} from './helpers.js';

/**
 * Issue 10 item 2: a create-chat answer without a usable `id` once made the upload send every
 * file with no chatId and end with "Done: chat undefined". The answer is decoded at the wire, so
 * the run stops before any file is sent and says which operation, which field and which request.
 */
describe('upload: POST /space/chat answered 200 without a usable id', () => {
	let platform: LocalPlatform;
	const cleanups: Array<() => void | Promise<void>> = [];

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterEach(async () => {
		platform.setFaults({rules: []});
		for (const cleanup of cleanups.splice(0).reverse()) {
			await cleanup();
		}
	});

	afterAll(async () => {
		await platform.close();
	});

	function folder(): string {
		const made = makeFolder({'a.txt': 'alpha', 'b.txt': 'beta'});
		cleanups.push(made.cleanup);
		return made.dir;
	}

	/** Runs the upload and checks what reached the platform: the chat create and nothing after it. */
	async function uploadAgainst(baseUrl: string) {
		const before = platform.requests.length;
		const run = await runCommand(uploadCommand, {argv: [folder(), 'q'], flags: {pollInterval: '0.05'}, env: platformEnv(platform, {PLATFORM_BASE_URL: baseUrl})});
		const calls = platform.requests.slice(before);
		const chatCreate = defined(calls.find(record => record.method === 'POST' && record.path === '/space/chat'));
		// Nothing was sent after the chat: no upsert, no blob PUT, no message, no poll.
		expect(calls.filter(record => record.path === '/content/upsert')).toEqual([]);
		expect(calls.filter(record => record.method === 'PUT')).toEqual([]);
		expect(calls.slice(calls.indexOf(chatCreate) + 1)).toEqual([]);
		expect(run.code).toBe(1);
		expect(run.stdout).not.toContain('Done');
		expect(run.stdout).not.toContain('undefined');
		return {run, said: joinText(describeError(run.error)), requestId: chatCreate.requestId};
	}

	/** The chat create answered 200 (the platform says 201) with its body rewritten. */
	async function chatAnswer(rewrite: (body: Record<string, unknown>) => unknown) {
		const isChatCreate = (call: {method: string; path: string}) => call.method === 'POST' && call.path === '/space/chat';
		const proxy = await startProxy(platform, {
			rewrite: (call, _status, body) => (isChatCreate(call) ? rewrite(body as Record<string, unknown>) : body),
			rewriteStatus: (call, status) => (isChatCreate(call) ? 200 : status),
		});
		cleanups.push(async () => proxy.close());
		return proxy;
	}

	it('an answer with the id stripped stops the run before any file is sent, naming the operation, the field and the request id', async () => {
		const proxy = await chatAnswer(body => Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'id')));
		const {run, said, requestId} = await uploadAgainst(proxy.url);
		expect(said).toContain(`Create chat (POST /space/chat) answered HTTP 200 with a malformed body: id is missing (request id ${requestId})`);
		expect(run.stderr).toContain(`id is missing (request id ${requestId})`);
	});

	it('an id of the wrong type is the same kind of error', async () => {
		const proxy = await chatAnswer(body => ({...body, id: 42}));
		const {said, requestId} = await uploadAgainst(proxy.url);
		expect(said).toMatch(new RegExp(String.raw`^Create chat \(POST /space/chat\) answered HTTP 200 with a malformed body: id .+ \(request id ${requestId}\)`));
	});

	it('the local platform\'s empty-200 fault on createChat (body null) stops the run the same way', async () => {
		platform.setFaults({rules: [{operation: 'createChat', kind: 'empty-200', times: 1}]});
		const {said, requestId} = await uploadAgainst(platform.baseUrl);
		expect(platform.requests.find(record => record.requestId === requestId)?.fault).toBe('empty-200');
		expect(said).toContain('Create chat (POST /space/chat) answered HTTP 200 with a malformed body');
		expect(said).toContain(`(request id ${requestId})`);
		expect(said).not.toContain('Cannot read properties');
	});
});
