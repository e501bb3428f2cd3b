/**
 * What the serve screen's terminal tests share: a model that answers, fails or holds as told, one
 * local platform for the file (its faults cleared before each test), chosen events delivered to a
 * serve, and waits on what the screen shows, never on a time.
 */
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, beforeEach, expect} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {stripAnsi, type PtySession} from '../../support/pty.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {post} from '../../receiver/helpers.js';

type Mode = 'ok' | 'fail' | 'hold';

/** A model whose next answers succeed, fail (HTTP 500) or never come, as the test says. */
async function startModel(): Promise<{url: string; mode: Mode; active: number; close(): Promise<void>}> {
	const state = {mode: 'ok' as Mode, active: 0};
	const server: Server = createServer((request, response) => {
		state.active++;
		response.on('close', () => {
			state.active--;
		});
		request.resume();
		request.on('end', () => {
			if (state.mode === 'hold') {
				return;
			}

			if (state.mode === 'fail') {
				response.writeHead(500, {'content-type': 'application/json'});
				response.end(JSON.stringify({error: {message: 'model unavailable'}}));
				return;
			}

			response.writeHead(200, {'content-type': 'application/json'});
			response.end(JSON.stringify({choices: [{index: 0, message: {role: 'assistant', content: 'The keeper writes the weather down.'}, finish_reason: 'stop'}]}));
		});
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	const {port} = server.address() as AddressInfo;
	return Object.assign(state, {
		url: `http://127.0.0.1:${port}/v1`,
		async close() {
			server.closeAllConnections();
			await new Promise<void>(resolve => {
				server.close(() => {
					resolve();
				});
			});
		},
	});
}

/**
 * The port a serve started with `--port 0` listens on, as it reports it: the listening line of its
 * screen, or the `listening` record of --json. No port is picked before the server binds it.
 */
export async function listeningPort(read: () => string): Promise<number> {
	const found = await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)|"url":"http:\/\/127\.0\.0\.1:(\d+)"/i.exec(stripAnsi(read())), {what: 'serve to say where it listens'});
	return Number(found[1] ?? found[2]);
}

/** The platform and the model of the file running now: started before its tests by the hooks serveScreenPlatform registers. */
export let platform: LocalPlatform;
export let model: Awaited<ReturnType<typeof startModel>>;
let user: PlatformClient;

/** Registers the hooks that start the platform and the model for the file, and stop them after it. */
export function serveScreenPlatform(): void {
	beforeAll(async () => {
		model = await startModel();
		platform = (await startPlatform({llmUrl: model.url})).platform;
		user = clientFor(platform);
	});

	// Each test starts on a platform without faults, so one that failed half way does not fail the next.
	beforeEach(() => {
		platform.setFaults({rules: []});
	});

	afterAll(async () => {
		await user.close();
		await platform.close();
		await model.close();
	});
}

export const env = () => ({PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId, PLATFORM_ENDPOINT_SECRET: platform.endpointSecret});

/** A chosen-module event for a real assistant message (its built-in answer written first). */
export async function chosenEvent(text: string) {
	model.mode = 'ok';
	const chat = await user.createChat({title: 'Screen', assistantId: platform.assistantId});
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text});
	const history = await user.getChatMessages(chat.id);
	const messageId = history.messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
	await waitFor(() => platform.message(messageId)?.stoppedStreamingAt, {what: 'the built-in answer'});
	return buildTestEvent('external-module-chosen', {chatId: chat.id, assistantMessageId: messageId, text, userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
}

export async function deliver(port: number, event: ReturnType<typeof buildTestEvent>): Promise<void> {
	const delivery = signDelivery(event, platform.endpointSecret);
	const answer = await post(`http://127.0.0.1:${port}/webhook`, delivery.body, delivery.headers);
	expect(answer.status).toBe(200);
}

/**
 * Waits until the terminal's screen (what is visible now) satisfies `check` with a whole frame on
 * it: a frame can arrive in pieces, and the status box's bottom border is always its last line.
 */
export async function screenShows(session: PtySession, check: (screen: string[]) => boolean, what: string): Promise<string[]> {
	const whole = (screen: string[]) => /^╰─+╯$/.test(screen.filter(line => line.trim() !== '').at(-1) ?? '');
	return waitFor(() => session.terminal().screen(), {until: screen => check(screen) && whole(screen), what: `${what} (a whole frame)`});
}

export const has = (text: string) => (screen: string[]) => screen.some(line => line.includes(text));
