/**
 * `platform-tui chat`: one-shot (plain, streaming, and --json) against the local platform, whose
 * built-in answer to a follow-up keeps to the earlier subject and streams; the interactive prompt
 * in a terminal (80×24): two questions, two replies, both in the scrollback; `upload -i` going on
 * into that prompt in the chat it filled; Ctrl+C mid-reply.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import chat from '../../source/commands/chat.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {defined} from '../support/defined.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runInPty} from '../support/pty.js';
import {startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {runCliInProcess, savedProfileEnv} from '../support/run-cli.js';
import {memoryStream, runCommand} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';
import {makeFolder} from './helpers.js';

const facts = [
	'The Aurora Mini warranty lasts two years from the date of purchase.',
	'The Aurora Mini warranty covers the LED light engine and the battery.',
	'The Zephyr speaker battery lasts ten hours.',
	'The Zephyr speaker ships in a blue box.',
].join('\n');

describe('platform-tui chat', () => {
	let platform: LocalPlatform;
	let client: PlatformClient;
	let chatId: string;
	let docs: ReturnType<typeof makeFolder>;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		client = clientFor(platform);
		docs = makeFolder({'products.txt': `${facts}\n`});
		chatId = (await client.createChat({title: 'Follow-ups', assistantId: platform.assistantId})).id;
		const content = await client.upsertContent({input: {key: 'products.txt', title: 'products.txt', mimeType: 'text/plain'}, chatId});
		await client.putBlob(defined(content.writeUrl), {filePath: `${docs.dir}/products.txt`, contentType: 'text/plain'});
		await client.finalizeContent({input: {key: 'products.txt', title: 'products.txt', mimeType: 'text/plain', byteSize: facts.length + 1}, chatId, fileUrl: defined(content.readUrl)});
		await waitFor(() => platform.content(content.id)?.ingestionState, {until: state => state === 'FINISHED'});
	});

	afterAll(async () => {
		await client.close();
		await platform.close();
		docs.cleanup();
	});

	const ask = async (prompt: string, flags: Record<string, unknown> = {}) => runCommand(chat, {argv: [chatId, prompt], flags: {pollInterval: '0.02', ...flags}, env: platformEnv(platform)});

	it('asks once and prints the reply; a follow-up is answered about the earlier subject, with the chat in context', async () => {
		const first = await ask('What does the Aurora Mini warranty cover?');
		expect(first.stderr).toBe('');
		expect(first.code).toBe(0);
		expect(first.stdout).toContain('LED light engine');
		expect(first.stdout.endsWith('\n')).toBe(true);

		const second = await ask('And how long does it last?');
		expect(second.code).toBe(0);
		expect(second.stdout).toContain('warranty lasts two years');
		// The Zephyr's battery also "lasts", but it is not what the conversation is about.
		expect(second.stdout).not.toContain('Zephyr');
		const completion = defined(platform.completions.at(-1));
		expect(completion.source).toBe('assistant');
		expect(completion.messages.map(message => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
		expect(completion.messages[1]?.content).toBe('What does the Aurora Mini warranty cover?');
	});

	it('streams the built-in answer over a few polls and prints NDJSON with --json', async () => {
		const result = await ask('How long does the Zephyr speaker battery last and what box does it ship in?', {json: true});
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		const events = result.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; text?: string; reply?: string});
		expect(events[0]?.type).toBe('message-sent');
		const progress = events.filter(event => event.type === 'reply-progress').map(event => event.text ?? '');
		expect(progress.length).toBeGreaterThanOrEqual(2);
		const last = defined(events.at(-1));
		expect(last).toMatchObject({type: 'reply', chatId});
		for (const text of progress) {
			expect(defined(last.reply).startsWith(text)).toBe(true);
		}

		expect(events.at(-2)?.type).toBe('reply-complete');
	});

	it('refuses an unknown chat, naming it, and a missing prompt without a terminal', async () => {
		const unknown = await runCommand(chat, {argv: ['chat_nope', 'Hello?'], env: platformEnv(platform)});
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('Chat chat_nope was not found on the platform');
		const noPrompt = await runCommand(chat, {argv: [chatId], env: platformEnv(platform)});
		expect(noPrompt.code).toBe(1);
		expect(noPrompt.stderr).toContain('needs a terminal');
	});

	/**
	 * Once the first reply shows, asks the follow-up, waits for its reply and leaves with an empty
	 * line; checks the exit and that both replies are in the scrollback, in order. Returns the output.
	 */
	async function followUpAndLeave(session: ReturnType<typeof runInPty>): Promise<string> {
		await session.waitFor(/LED light engine[\s\S]*Ask a follow-up question/);
		session.write('And how long does it last?\r');
		await session.waitFor(/› And how long does it last\?[\s\S]*warranty lasts two years[\s\S]*Ask a follow-up question/);
		session.write('\r');
		const {code, output} = await session.exit();
		expect(code).toBe(0);
		const followUp = output.lastIndexOf('› And how long does it last?');
		expect(output.indexOf('LED light engine')).toBeGreaterThan(-1);
		expect(output.indexOf('LED light engine')).toBeLessThan(followUp);
		expect(output.indexOf('warranty lasts two years', followUp)).toBeGreaterThan(followUp);
		return output;
	}

	it('opens a prompt in a terminal (80×24): two questions, two replies, both kept in the scrollback', async () => {
		const session = runInPty(['chat', chatId, '--poll-interval', '0.05'], {env: platformEnv(platform), columns: 80, rows: 24});
		await session.waitFor('Ask a follow-up question');
		session.write('What does the Aurora Mini warranty cover?\r');
		const plain = await followUpAndLeave(session);
		expect(plain).toContain('› What does the Aurora Mini warranty cover?');
		// Ink never cleared the terminal or its scrollback.
		expect(session.output()).not.toContain('\u001B[2J');
		expect(session.output()).not.toContain('\u001B[3J');
	});

	it('upload -i goes on into the prompt after the first reply (80×24): the follow-up goes to the chat just filled, both replies in the scrollback', async () => {
		const before = platform.requests.length;
		const session = runInPty(['upload', docs.dir, 'What does the Aurora Mini warranty cover?', '-i', '--poll-interval', '0.05'], {env: platformEnv(platform), columns: 80, rows: 24});
		await followUpAndLeave(session);
		// Two questions asked, both in the one chat the upload created and filled.
		const requests = platform.requests.slice(before);
		const sends = requests.filter(request => request.method === 'POST' && request.path === '/space/message');
		const chats = sends.map(request => (request.body as {chatId?: string} | undefined)?.chatId);
		expect(sends.map(request => (request.body as {text?: string} | undefined)?.text)).toEqual(['What does the Aurora Mini warranty cover?', 'And how long does it last?']);
		expect(chats[0]).toBeDefined();
		expect(chats[0]).not.toBe(chatId);
		expect(chats[1]).toBe(chats[0]);
		const upserts = requests.filter(request => request.method === 'POST' && request.path === '/content/upsert');
		expect(upserts.length).toBeGreaterThan(0);
		expect(upserts.every(request => (request.body as {chatId?: string} | undefined)?.chatId === chats[0])).toBe(true);
		expect(session.output()).not.toContain('\u001B[2J');
	});

	describe('Ctrl+C during a reply', () => {
		let module: RecordingServer;

		beforeAll(async () => {
			// An external module that takes every event and never answers: the reply stays streaming.
			module = await startRecordingServer();
			platform.setWebhookUrl(`${module.url}/webhook`);
		});

		afterAll(async () => {
			platform.setWebhookUrl(undefined);
			await module.close();
		});

		it('stops waiting, says the reply keeps arriving, and the prompt goes on', async () => {
			const session = runInPty(['chat', chatId, '--poll-interval', '0.05'], {env: platformEnv(platform), columns: 80, rows: 24});
			await session.waitFor('Ask a follow-up question');
			session.write('Is anyone there?\r');
			await session.waitFor('waiting for the assistant');
			session.write('\u0003');
			// The note wraps at the terminal's 80 columns.
			await session.waitFor(new RegExp(`Stopped waiting; the reply keeps arriving in chat ${chatId}\\s+on the platform\\.`));
			await session.waitFor(/keeps arriving[\s\S]*Ask a follow-up question/);
			session.write('\u0004');
			const {code} = await session.exit();
			expect(code).toBe(0);
		});

		it('one-shot: Ctrl+C (SIGINT) stops waiting with exit 130 and says so', async () => {
			const controller = new AbortController();
			const running = runCliInProcess(['chat', chatId, 'Hello?', '--poll-interval', '0.02'], {env: platformEnv(platform), signal: controller.signal});
			await waitFor(() => platform.requests.some(record => record.path === '/space/message' && (record.body as {text?: string}).text === 'Hello?'));
			controller.abort('SIGINT');
			const result = await running;
			expect(result.code).toBe(130);
			expect(result.stderr).toBe(`Stopped waiting; the reply keeps arriving in chat ${chatId} on the platform.\n`);
		});

		it.each([['SIGINT', 130, 'Cancelled by Ctrl+C.'], ['SIGTERM', 143, 'Stopped by SIGTERM.']] as const)('one-shot --json stopped by %s once its question is sent: the error line names the chat and the profile', async (signal, code, message) => {
			const controller = new AbortController();
			const stdout = memoryStream();
			// Stopped once the run says the question was sent (its message-sent line).
			stdout.on('data', (chunk: Buffer) => {
				if (chunk.toString('utf8').includes('"type":"message-sent"')) {
					controller.abort(signal);
				}
			});
			const result = await runCliInProcess(['chat', chatId, 'Still there?', '--poll-interval', '0.02', '--json'], {env: platformEnv(platform, await savedProfileEnv('loc', platform.baseUrl)), signal: controller.signal, stdout});
			expect(result.code, result.stderr).toBe(code);
			const lines = result.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
			expect(lines.at(-2)).toEqual({type: 'cancelled', chatId});
			expect(lines.at(-1)).toEqual({
				type: 'error',
				code: 'cancelled',
				message,
				next: `The reply keeps arriving in chat ${chatId}; ask another question there with: platform-tui chat ${chatId} "…"`,
				chatId,
				profile: 'loc',
				chatIds: [chatId],
				contentIds: [],
				eventIds: [],
			});
		});
	});
});
