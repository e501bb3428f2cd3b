/** Receiver-specific test helpers: signed deliveries, event bodies and a stand-in model (the platform starter, waitFor and defined live in test/support/). */
import {randomBytes} from 'node:crypto';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {request} from 'undici';
import {signWebhookBody} from '../../source/platform/webhook-signature.js';

export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;

export type Delivery = {status: number; body: unknown; text: string};

/** POSTs raw bytes to the receiver with the given headers. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Delivery> {
	const response = await request(url, {method: 'POST', body, headers: {'content-type': 'application/json', ...headers}});
	const text = await response.body.text();
	let parsed: unknown;
	try {
		parsed = JSON.parse(text) as unknown;
	} catch {
		parsed = undefined;
	}

	return {status: response.statusCode, body: parsed, text};
}

/** Sends an event signed like the platform does (headers, HMAC of the exact bytes, Created-At now). */
export async function sendSigned(url: string, event: Record<string, unknown>, secret: string, overrides: {createdAt?: string; signature?: string; raw?: string} = {}): Promise<Delivery> {
	const raw = overrides.raw ?? JSON.stringify(event);
	const headers: Record<string, string> = {
		'x-platform-signature': overrides.signature ?? signWebhookBody(raw, secret),
		'x-platform-created-at': overrides.createdAt ?? String(Math.floor(Date.now() / 1000)),
		'x-platform-version': '1.0.0',
	};
	if (typeof event.id === 'string') {
		headers['x-platform-id'] = event.id;
	}

	return post(url, raw, headers);
}

export function userMessageEvent(fields: {id?: string; chatId?: string; text?: string; userId?: string; companyId?: string} = {}): Record<string, unknown> {
	return {
		id: fields.id ?? newEventId(),
		version: '1.0.0',
		event: 'platform.chat.user-message.created',
		createdAt: String(Math.floor(Date.now() / 1000)),
		userId: fields.userId ?? 'user_test',
		companyId: fields.companyId ?? 'company_test',
		payload: {chatId: fields.chatId ?? 'chat_test', assistantId: 'assistant_test', text: fields.text ?? 'Hello there'},
	};
}

export function chosenEvent(fields: {id?: string; chatId: string; text: string; assistantMessageId: string; userId: string; companyId: string}): Record<string, unknown> {
	return {
		id: fields.id ?? newEventId(),
		version: '1.0.0',
		event: 'platform.chat.external-module.chosen',
		createdAt: String(Math.floor(Date.now() / 1000)),
		userId: fields.userId,
		companyId: fields.companyId,
		payload: {
			name: 'ExternalModule',
			description: 'test',
			configuration: {},
			chatid: fields.chatId,
			assistantId: 'assistant_test',
			userMessage: {id: 'msg_user', text: fields.text, createdAt: new Date().toISOString()},
			assistantMessage: {id: fields.assistantMessageId, createdAt: new Date().toISOString()},
		},
	};
}

/**
 * What a recording platform answers each call of an answer with: a body its operation accepts (a
 * RUNNING log, no documents, a completion, the written message).
 */
export function platformAnswer(request: {path: string}): unknown {
	if (request.path.startsWith('/message-log')) {
		return {id: 'log_1', messageId: 'msg_a', text: '', status: 'RUNNING', order: 1};
	}

	if (request.path.startsWith('/search')) {
		return [];
	}

	if (request.path.startsWith('/openai')) {
		return {choices: [{index: 0, message: {role: 'assistant', content: 'An answer.'}, finish_reason: 'stop'}]};
	}

	return {id: 'msg_a', chatId: 'chat_a', role: 'ASSISTANT', text: 'An answer.'};
}

/**
 * An OpenAI-compatible model for the local platform's --llm-url: answers after `delayMs`, or
 * with `status` when that is set (a failing model).
 */
export async function startModel(options: {delayMs?: number; status?: number; content?: string; gate?: Promise<void>} = {}): Promise<{url: string; calls: number; active: number; maxActive: number; setDelay(ms: number): void; close(): Promise<void>}> {
	let delayMs = options.delayMs ?? 0;
	const state = {calls: 0, active: 0, maxActive: 0};
	const server: Server = createServer((request_, response) => {
		state.calls++;
		state.active++;
		state.maxActive = Math.max(state.maxActive, state.active);
		response.on('close', () => {
			state.active--;
		});
		request_.resume();
		request_.on('end', () => {
			let timer: NodeJS.Timeout | undefined;
			// With a gate, every answer waits for it first: a test opens it on the event it waits for.
			const answer = () => {
				timer = setTimeout(() => {
					if (options.status) {
						response.writeHead(options.status, {'content-type': 'application/json'});
						response.end(JSON.stringify({error: {message: 'model unavailable'}}));
						return;
					}

					response.writeHead(200, {'content-type': 'application/json'});
					response.end(JSON.stringify({choices: [{index: 0, message: {role: 'assistant', content: options.content ?? 'An answer from the test model.'}, finish_reason: 'stop'}]}));
				}, delayMs);
			};

			if (options.gate) {
				void options.gate.then(() => {
					if (!response.destroyed) {
						answer();
					}
				});
			} else {
				answer();
			}

			response.on('close', () => {
				clearTimeout(timer);
			});
		});
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	const {port} = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		get calls() {
			return state.calls;
		},
		get active() {
			return state.active;
		},
		get maxActive() {
			return state.maxActive;
		},
		setDelay(ms: number) {
			delayMs = ms;
		},
		async close() {
			server.closeAllConnections();
			await new Promise<void>(resolve => {
				server.close(() => {
					resolve();
				});
			});
		},
	};
}
