/**
 * The upload against answers the contract allows: a local platform answering with only the fields
 * the contract promises, a history answer that cannot be read (the reply still comes first), and
 * a reply that never completes whatever its answers look like (the timeout names the chat).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import uploadCommand from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {makeFolder, startProxy} from './helpers.js';

const files = {'a.txt': 'The warranty lasts two years.', 'b.md': '# Returns\nReturns are free within 30 days.'};

describe.each(['full', 'sparse'] as const)('upload against a local platform with %s answers', answers => {
	let platform: LocalPlatform;
	let folder: ReturnType<typeof makeFolder>;

	beforeAll(async () => {
		platform = (await startPlatform({answers})).platform;
		folder = makeFolder(files);
	});

	afterAll(async () => {
		folder.cleanup();
		await platform.close();
	});

	it('uploads, waits for ingestion, prints the reply and the history', async () => {
		const run = await runCommand(uploadCommand, {argv: [folder.dir, 'How long is the warranty?'], flags: {pollInterval: '0.05'}, env: platformEnv(platform)});
		expect(run.stderr).not.toContain('Error');
		expect(run.code).toBe(0);
		// Piped: the reply and the history on stdout, the progress (and the closing Done line) on stderr.
		expect(run.stdout).toMatch(/^Reply \([^)]+\): .+/m);
		expect(run.stdout).toContain('History:\n  USER: How long is the warranty?\n  ASSISTANT: ');
		expect(run.stderr).toMatch(/^Done: chat chat_\w+, contents cont_\w+, cont_\w+$/m);
		// What the platform answered: in sparse mode, only the promised fields.
		const chat = platform.requests.findLast(request => request.path === '/space/chat');
		expect(chat?.status).toBe(201);
	});
});

describe('what was obtained is shown', () => {
	let platform: LocalPlatform;
	let folder: ReturnType<typeof makeFolder>;

	beforeAll(async () => {
		platform = (await startPlatform({answers: 'sparse'})).platform;
		folder = makeFolder(files);
	});

	afterAll(async () => {
		folder.cleanup();
		await platform.close();
	});

	const isHistory = (call: {method: string; path: string}) => call.method === 'GET' && /^\/space\/chat\/[^/]+\/messages$/.test(call.path);
	const isLatest = (call: {method: string; path: string}) => call.method === 'GET' && call.path.endsWith('/messages/latest');

	it.each([
		['cannot be decoded', {rewrite: (call: {method: string; path: string}, _status: number, body: unknown) => (isHistory(call) ? {messages: 'not a list'} : body)}],
		['cannot be fetched', {answer: (call: {method: string; path: string}) => (isHistory(call) ? {status: 404, body: {error: 'history is gone'}} : undefined)}],
	])('when the history %s, the reply is printed first, then the history error (exit 1)', async (_what, hooks) => {
		const proxy = await startProxy(platform, hooks);
		try {
			for (const json of [false, true]) {
				const run = await runCommand(uploadCommand, {argv: [folder.dir, 'How long is the warranty?'], flags: {pollInterval: '0.05'}, json, env: platformEnv(platform, {PLATFORM_BASE_URL: proxy.url})});
				expect(run.code).toBe(1);
				const said = joinText(describeError(run.error));
				expect(said).toMatch(/history of chat chat_\w+ could not be fetched/);
				if (json) {
					const lines = run.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; text?: string});
					const reply = lines.find(line => line.type === 'reply-complete');
					expect(reply?.text).toEqual(expect.any(String));
					expect(lines.some(line => line.type === 'history' || line.type === 'result')).toBe(false);
				} else {
					expect(run.stdout).toMatch(/^Reply \([^)]+\): \S.*/m);
					expect(run.stdout).not.toContain('History:');
					expect(run.stderr).toContain('could not be fetched');
				}
			}
		} finally {
			await proxy.close();
		}
	});

	it.each([
		['an empty object', {}],
		['a streaming message with nothing else', {stoppedStreamingAt: null}],
		['fields of other types', {id: 7, role: ['ASSISTANT'], text: {parts: []}, stoppedStreamingAt: null}],
		['no message at all (null)', null],
		['a list instead of a message', [1, 2]],
	])('a reply that never completes ends in the timeout naming the chat, whatever the answers held (%s)', async (_what, latest) => {
		const proxy = await startProxy(platform, {answer: call => (isLatest(call) ? {status: 200, body: latest} : undefined)});
		try {
			const run = await runCommand(uploadCommand, {argv: [folder.dir, 'Anything?'], flags: {pollInterval: '0.05', replyTimeout: '0.5'}, env: platformEnv(platform, {PLATFORM_BASE_URL: proxy.url})});
			expect(run.code).toBe(1);
			expect(joinText(describeError(run.error))).toMatch(/waiting for the assistant's reply in chat chat_\w+/);
		} finally {
			await proxy.close();
		}
	});
});
