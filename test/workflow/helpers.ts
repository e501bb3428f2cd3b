import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {request} from 'undici';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {UploadEvent} from '../../source/workflow/events.js';

/** Creates a temporary folder holding `files` (name → content; a trailing `/` makes a directory). */
export function makeFolder(files: Record<string, string | Buffer>): {dir: string; cleanup: () => void} {
	const dir = mkdtempSync(path.join(tmpdir(), 'platform-tui-upload-'));
	for (const [name, content] of Object.entries(files)) {
		if (name.endsWith('/')) {
			mkdirSync(path.join(dir, name), {recursive: true});
		} else {
			writeFileSync(path.join(dir, name), content);
		}
	}

	return {
		dir,
		cleanup() {
			rmSync(dir, {recursive: true, force: true});
		},
	};
}

/** Collects workflow events. */
export function recorder(): {events: UploadEvent[]; onEvent: (event: UploadEvent) => void; ofType: <T extends UploadEvent['type']>(type: T) => Array<Extract<UploadEvent, {type: T}>>} {
	const events: UploadEvent[] = [];
	return {
		events,
		onEvent(event) {
			events.push(event);
		},
		ofType: <T extends UploadEvent['type']>(type: T) => events.filter((event): event is Extract<UploadEvent, {type: T}> => event.type === type),
	};
}

async function listen(server: Server): Promise<string> {
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server): Promise<void> {
	await new Promise<void>(resolve => {
		server.close(() => {
			resolve();
		});
		server.closeAllConnections();
	});
}

async function readBody(message: IncomingMessage): Promise<Buffer> {
	const parts: Buffer[] = [];
	for await (const part of message) {
		parts.push(part as Buffer);
	}

	return Buffer.concat(parts);
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = JSON.stringify(body);
	response.writeHead(status, {...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text))});
	response.end(text);
}

export type ProxiedCall = {method: string; path: string; body: unknown};

export type ProxyHooks = {
	/** Answers a call itself instead of forwarding it (return undefined to forward). */
	answer?: (call: ProxiedCall) => {status: number; body: unknown} | undefined;
	/** Rewrites the JSON answer of a forwarded call. */
	rewrite?: (call: ProxiedCall, status: number, body: unknown, proxyUrl: string) => unknown;
	/** Rewrites the status of a forwarded call's answer (e.g. the platform's 201 to a 200). */
	rewriteStatus?: (call: ProxiedCall, status: number) => number;
	/** Holds a call: it is never forwarded nor answered (a process killed while waiting for it). */
	hold?: (call: ProxiedCall) => boolean;
	/** Awaited before a `/reject-blob/...` PUT is answered, e.g. until another PUT has arrived. */
	beforeReject?: (path: string) => Promise<void>;
};

export type TestProxy = {
	url: string;
	/** Blob PUTs the proxy took itself: the path and whether the client gave up on it before an answer. */
	blobPuts: Array<{path: string; closedByClient: boolean}>;
	/** Resolves once a blob PUT to `path` has reached the proxy. */
	arrived(path: string): Promise<void>;
	close(): Promise<void>;
};

/**
 * A loopback proxy in front of the local platform, for the error cases the platform does not
 * produce by itself. API calls are forwarded (and may be answered or rewritten by the hooks), and
 * the platform's `request-id` header comes back with the answer.
 * Its own blob routes: `/reject-blob/...` drains the body and answers 403; `/hang-blob/...`
 * never answers (the client must abort it).
 */
export async function startProxy(platform: LocalPlatform, hooks: ProxyHooks = {}): Promise<TestProxy> {
	const blobPuts: TestProxy['blobPuts'] = [];
	const arrivals = new Map<string, {promise: Promise<undefined>; resolve: () => void}>();
	const arrival = (path: string): {promise: Promise<undefined>; resolve: () => void} => {
		let known = arrivals.get(path);
		if (known === undefined) {
			let resolve = (): void => undefined;
			const promise = new Promise<undefined>(done => {
				resolve = () => {
					done(undefined);
				};
			});
			known = {promise, resolve};
			arrivals.set(path, known);
		}

		return known;
	};

	let proxyUrl = '';
	const server = createServer((incoming, response) => {
		void (async () => {
			const url = new URL(incoming.url ?? '/', 'http://proxy.invalid');
			if (url.pathname.startsWith('/reject-blob/') || url.pathname.startsWith('/hang-blob/')) {
				arrival(url.pathname).resolve();
			}

			if (url.pathname.startsWith('/reject-blob/')) {
				await hooks.beforeReject?.(url.pathname);
				await readBody(incoming);
				blobPuts.push({path: url.pathname, closedByClient: false});
				sendJson(response, 403, {error: {message: 'Signature not valid for this blob', code: 'AUTHENTICATION_FAILED'}});
				return;
			}

			if (url.pathname.startsWith('/hang-blob/')) {
				const record = {path: url.pathname, closedByClient: false};
				blobPuts.push(record);
				incoming.resume();
				response.on('close', () => {
					record.closedByClient = !response.writableEnded;
				});
				return;
			}

			const raw = await readBody(incoming);
			const body: unknown = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
			const call: ProxiedCall = {method: incoming.method ?? 'GET', path: url.pathname, body};
			if (hooks.hold?.(call)) {
				return;
			}

			const answered = hooks.answer?.(call);
			if (answered) {
				sendJson(response, answered.status, answered.body);
				return;
			}

			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(incoming.headers)) {
				if (typeof value === 'string' && name !== 'host' && name !== 'content-length' && name !== 'connection') {
					headers[name] = value;
				}
			}

			const forwarded = await request(`${platform.baseUrl}${incoming.url ?? '/'}`, {
				method: call.method as 'GET',
				headers,
				body: raw.length > 0 ? raw : undefined,
			});
			const text = await forwarded.body.text();
			let answer: unknown = text === '' ? undefined : JSON.parse(text);
			if (hooks.rewrite) {
				answer = hooks.rewrite(call, forwarded.statusCode, answer, proxyUrl);
			}

			// The platform's request id goes back with the (possibly rewritten) answer, so errors can name it.
			const requestId = forwarded.headers['request-id'];
			const status = hooks.rewriteStatus?.(call, forwarded.statusCode) ?? forwarded.statusCode;
			sendJson(response, status, answer ?? null, typeof requestId === 'string' ? {'request-id': requestId} : {});
		})().catch((error: unknown) => {
			if (!response.headersSent) {
				sendJson(response, 500, {error: String(error)});
			}
		});
	});
	proxyUrl = await listen(server);
	return {
		url: proxyUrl,
		blobPuts,
		async arrived(path) {
			await arrival(path).promise;
		},
		async close() {
			await closeServer(server);
		},
	};
}

/** The key (file name) of an upsert call, or undefined for other calls. */
export function upsertKey(call: ProxiedCall): string | undefined {
	if (call.method !== 'POST' || call.path !== '/content/upsert') {
		return undefined;
	}

	const input = (call.body as {input?: {key?: unknown}} | undefined)?.input;
	return typeof input?.key === 'string' ? input.key : undefined;
}

type ChosenEvent = {event: string; payload: {chatid: string; assistantMessage: {id: string}}};

export type TestModule = {url: string; events: string[]; close(): Promise<void>};

/**
 * An external module (webhook application) written for the tests. It acknowledges every event
 * with 200 and, on the chosen-module event, runs `onChosen` (which may never write an answer).
 */
export async function startModule(onChosen: (event: ChosenEvent) => Promise<void> = async () => {}): Promise<TestModule> {
	const events: string[] = [];
	const running = new Set<Promise<void>>();
	const server = createServer((incoming, response) => {
		void readBody(incoming).then(raw => {
			const event = JSON.parse(raw.toString('utf8')) as ChosenEvent;
			events.push(event.event);
			sendJson(response, 200, {success: true});
			if (event.event === 'platform.chat.external-module.chosen') {
				const job = onChosen(event).catch(() => undefined);
				running.add(job);
				void job.finally(() => running.delete(job));
			}
		});
	});
	const url = await listen(server);
	return {
		url: `${url}/webhook`,
		events,
		async close() {
			await Promise.allSettled([...running]);
			await closeServer(server);
		},
	};
}

/** PATCHes a message on the local platform directly (lets a test module leave `text` out). */
export async function patchMessage(platform: LocalPlatform, messageId: string, body: Record<string, unknown>): Promise<void> {
	const response = await request(`${platform.baseUrl}/messages/${messageId}`, {
		method: 'PATCH',
		headers: {
			authorization: `Bearer ${platform.apiKey}`,
			'x-app-id': platform.appId,
			'x-user-id': platform.userId,
			'x-company-id': platform.companyId,
			'content-type': 'application/json',
		},
		body: JSON.stringify(body),
	});
	await response.body.text();
	if (response.statusCode !== 200) {
		throw new Error(`PATCH /messages/${messageId} answered ${response.statusCode}`);
	}
}
