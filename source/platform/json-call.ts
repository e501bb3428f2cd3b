/**
 * One JSON call to the platform API: the headers (key, app, user, company, version), the body,
 * the attempts, and the answer decoded for its operation. A key echoed in an error is masked.
 */
import {mask} from '../format/secret.js';
import {userAgent as defaultUserAgent} from '../version.js';
import {runAttempts} from './attempts.js';
import {attemptPlan, type CallOptions, type ClientContext} from './client-options.js';
import {readResponse} from './read-response.js';
import type {Answer, AnswerOperation} from './schemas.js';
import {apiVersion} from './types.js';

let schemas: Promise<typeof import('./schemas.js')> | undefined;

/**
 * The answer schemas, loaded once, when the first request is on its way. zod is some 90 modules,
 * the largest part of a command's start-up: loaded while the first answer travels, it no longer
 * delays the first request.
 */
async function loadSchemas(): Promise<typeof import('./schemas.js')> {
	schemas ??= import('./schemas.js');
	return schemas;
}

export type JsonCall<O extends AnswerOperation> = {
	operation: O;
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	path: string;
	body?: unknown;
	/** Send `Content-Type: application/json` even without a body (POST /v2/keys/rotate: the wire contract lists the header). */
	jsonContentType?: true;
	call?: CallOptions | undefined;
};

export async function sendJson<O extends AnswerOperation>(context: ClientContext, operation: JsonCall<O>): Promise<Answer<O>> {
	const {options} = context;
	const {method, path} = operation;
	return runAttempts(attemptPlan(context, operation.operation, method, path, operation.call), async (signal, attempt) => {
		const key = context.keySupplier();
		const call = operation.call ?? {};
		const userId = call.userId ?? options.userId;
		const companyId = call.companyId ?? options.companyId;
		const headers: Record<string, string> = {
			authorization: `Bearer ${key}`,
			'x-app-id': options.appId,
			'x-api-version': apiVersion,
			'user-agent': options.userAgent ?? defaultUserAgent,
			accept: 'application/json',
		};
		if (userId) {
			headers['x-user-id'] = userId;
		}

		if (companyId) {
			headers['x-company-id'] = companyId;
		}

		let body: string | undefined;
		if (operation.body !== undefined) {
			body = JSON.stringify(operation.body);
		}

		if (body !== undefined || operation.jsonContentType) {
			headers['content-type'] = 'application/json';
		}

		const started = performance.now();
		const responding = context.transport.request(new URL(`${context.baseUrl}${path}`), {method, signal, headers, body});
		const decoding = loadSchemas();
		// Each is awaited below; until then a rejection must not count as unhandled.
		decoding.catch(() => undefined);
		const response = await responding;
		const failure = readResponse({operation: operation.operation, method, path}, response, ['request-id'], key);
		const {status, requestId, parsed} = failure;
		context.log({method, path, attempt, status, requestId, durationMs: performance.now() - started, key: mask(key)});
		if (failure.error) {
			throw failure.error;
		}

		const {decodeAnswer, notJson, acceptsAnyBody} = await decoding;
		const where = {operation: operation.operation, method, path, status, requestId, empty: parsed.empty};
		if (!parsed.json && !acceptsAnyBody(operation.operation)) {
			notJson(where);
		}

		return decodeAnswer(parsed.value, where);
	});
}
