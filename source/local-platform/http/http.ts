import type {IncomingMessage, ServerResponse} from 'node:http';
import {isRecord} from '../../format/value.js';
import {sendJson} from '../../platform/json-response.js';

export {sendJson};

/** An error answered with the platform's JSON error shape `{error: {message, code}}`. */
export class HttpError extends Error {
	override name = 'HttpError';

	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

export const badRequest = (message: string): HttpError => new HttpError(400, 'BAD_REQUEST', message);
export const notFound = (message: string): HttpError => new HttpError(404, 'NOT_FOUND', message);

/** Largest JSON request body accepted by the API routes. */
export const maxJsonBodyBytes = 1024 * 1024;

export function sendError(response: ServerResponse, error: HttpError): void {
	sendJson(response, error.status, {error: {message: error.message, code: error.code}}, error.headers);
}

/**
 * Reads a JSON body; an empty body is `undefined`. Non-JSON content types are refused with 415.
 * Returns the parsed value and the body's size in bytes.
 */
export async function readJsonBody(request: IncomingMessage): Promise<{value: unknown; bytes: number}> {
	const declared = Number(request.headers['content-length'] ?? '0');
	if (declared > maxJsonBodyBytes) {
		throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${maxJsonBodyBytes} bytes`);
	}

	const parts: Buffer[] = [];
	let size = 0;
	for await (const part of request) {
		const buffer = part as Buffer;
		size += buffer.length;
		if (size > maxJsonBodyBytes) {
			throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${maxJsonBodyBytes} bytes`);
		}

		parts.push(buffer);
	}

	const text = Buffer.concat(parts).toString('utf8');
	if (text.trim() === '') {
		return {value: undefined, bytes: size};
	}

	const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
	if (type !== 'application/json' && !type?.endsWith('+json')) {
		throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON with Content-Type: application/json');
	}

	try {
		return {value: JSON.parse(text) as unknown, bytes: size};
	} catch {
		throw badRequest('Request body is not valid JSON');
	}
}

export type JsonObject = Record<string, unknown>;

export function objectBody(body: unknown): JsonObject {
	if (body === undefined) {
		return {};
	}

	if (!isRecord(body)) {
		throw badRequest('Request body must be a JSON object');
	}

	return body;
}

export function requiredString(object: JsonObject, field: string, path = field): string {
	const value = object[field];
	if (typeof value !== 'string' || value.trim() === '') {
		throw badRequest(`"${path}" is required and must be a non-empty string`);
	}

	return value;
}

export function optionalString(object: JsonObject, field: string, path = field): string | undefined {
	const value = object[field];
	if (value === undefined || value === null) {
		return undefined;
	}

	if (typeof value !== 'string') {
		throw badRequest(`"${path}" must be a string`);
	}

	return value;
}

export function optionalTimestamp(object: JsonObject, field: string): string | null | undefined {
	const value = object[field];
	if (value === undefined) {
		return undefined;
	}

	if (value === null) {
		return null;
	}

	if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
		throw badRequest(`"${field}" must be an ISO 8601 timestamp or null`);
	}

	return new Date(value).toISOString();
}
