import type {IncomingMessage, ServerResponse} from 'node:http';
import {errorMessage} from '../../format/value.js';
import type {BlobStore} from '../content/blobs.js';
import {handleBlob} from '../content/blob-routes.js';
import type {ResolvedOptions} from '../options.js';
import type {Services} from '../services.js';
import {answerView} from '../sparse.js';
import {abortableSleep} from '../timers.js';
import type {RequestRecord} from '../types.js';
import {authenticate} from './auth.js';
import {eventSocketOperation, performedThen502, type FaultInjector} from './faults.js';
import {eventSocketPath, type EventSocketHub} from '../chats/event-socket.js';
import {HttpError, readJsonBody, sendError, sendJson} from './http.js';
import type {RequestLog} from './request-log.js';

/** What one request's way through the platform reads: the server's parts, shared by every request. */
export type Pipeline = {
	readonly requestLog: RequestLog;
	readonly faults: FaultInjector;
	readonly services: Pick<Services, 'contents' | 'ingestion' | 'keys' | 'router'>;
	readonly blobs: BlobStore;
	readonly eventSocket: EventSocketHub;
	readonly resolved: ResolvedOptions;
	/** Aborted when the platform closes: pending latency and slow-fault sleeps end. */
	readonly signal: AbortSignal;
};

/** One request: the request log, /health, latency, the blob routes or the API call, and the error answer. */
export async function handleRequest(pipeline: Pipeline, request: IncomingMessage, response: ServerResponse): Promise<void> {
	const url = new URL(request.url ?? '/', 'http://local.invalid');
	const method = (request.method ?? 'GET').toUpperCase();
	const record = pipeline.requestLog.open(request, response, url, method);
	try {
		if (url.pathname === '/health') {
			if (method !== 'GET' && method !== 'HEAD') {
				throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on /health`);
			}

			sendJson(response, 200, {status: 'ok'});
			return;
		}

		// Latency is real time even under an injected clock: it exists to slow real clients down.
		if (pipeline.faults.latencyMs > 0) {
			await abortableSleep(pipeline.faults.latencyMs, pipeline.signal);
		}

		if (url.pathname.startsWith('/blob/')) {
			const {contents, ingestion} = pipeline.services;
			await handleBlob(method, url, request, response, {contents, blobs: pipeline.blobs, ingestion, clock: pipeline.resolved.clock});
			return;
		}

		if (url.pathname === eventSocketPath) {
			eventStream(pipeline, request, response, url, method, record);
			return;
		}

		await api(pipeline, request, response, url, method, record);
	} catch (error) {
		const httpError = error instanceof HttpError
			? error
			: new HttpError(500, 'INTERNAL_SERVER_ERROR', `Local platform error: ${errorMessage(error)}`);
		if (response.headersSent) {
			response.destroy();
		} else {
			if (!request.complete) {
				// The body was not read; do not keep the connection for the next request.
				response.setHeader('connection', 'close');
			}

			sendError(response, httpError);
		}
	}
}

/** One API call: random fault, auth, body, route, the operation's fault rule, the answer. */
async function api(pipeline: Pipeline, request: IncomingMessage, response: ServerResponse, url: URL, method: string, record: RequestRecord): Promise<void> {
	const {faults, services, resolved} = pipeline;
	const refused = faults.random429or503();
	if (refused !== undefined) {
		record.fault = refused;
		throw faults.refusal(refused);
	}

	const caller = authenticate(request, url.pathname, services.keys, resolved);
	const body = await readJsonBody(request);
	pipeline.requestLog.keepBody(record, body);
	const {route, params} = services.router.match(method, url.pathname);
	const fault = faults.take(route.operation);
	if (fault === '429' || fault === '503' || fault === '500') {
		const status = fault === '429' ? 429 : (fault === '500' ? 500 : 503);
		record.fault = status;
		throw faults.refusal(status);
	}

	const result = await route.handle({method, url, params, query: url.searchParams, body: body.value, caller});
	if (fault === 'perform-502') {
		record.fault = fault;
		throw performedThen502(route.operation);
	}

	if (fault === 'slow') {
		record.fault = fault;
		// Real time even under an injected clock, like the latency: it exists to outlast a real client's deadline.
		await abortableSleep(faults.slowMs, pipeline.signal);
	}

	if (fault === 'empty-200') {
		record.fault = fault;
		sendJson(response, 200, null);
		return;
	}

	sendJson(response, result.status, answerView(resolved.answers, route.operation, result.body));
}

/** The event socket's stream: its faults, an outage, the key (401), then the stream itself. */
function eventStream(pipeline: Pipeline, request: IncomingMessage, response: ServerResponse, url: URL, method: string, record: RequestRecord): void {
	const {faults, services, resolved, eventSocket} = pipeline;
	if (method !== 'GET') {
		throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${url.pathname}`);
	}

	const fault = faults.take(eventSocketOperation);
	if (fault === '429' || fault === '503' || fault === '500' || eventSocket.refusing) {
		const status = fault === '429' ? 429 : (fault === '500' ? 500 : 503);
		record.fault = status;
		throw faults.refusal(status);
	}

	authenticate(request, url.pathname, services.keys, resolved);
	if (fault === 'drop') {
		record.fault = fault;
	}

	request.resume();
	eventSocket.accept(url.searchParams, response, fault === 'drop');
}
