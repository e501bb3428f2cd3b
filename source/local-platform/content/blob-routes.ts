import {createReadStream} from 'node:fs';
import type {IncomingMessage, ServerResponse} from 'node:http';
import {pipeline} from 'node:stream/promises';
import type {BlobStore} from './blobs.js';
import {isoNow, type PlatformClock} from '../clock.js';
import type {ContentStore} from './content-store.js';
import {headerValue} from '../context.js';
import {HttpError, badRequest} from '../http/http.js';
import type {Ingestion} from './ingestion.js';

export type BlobParts = {contents: ContentStore; blobs: BlobStore; ingestion: Ingestion; clock: PlatformClock};

/**
 * The pre-signed blob host: PUT stores the bytes (and starts ingestion), GET and HEAD read them.
 * No platform credentials: the token in the address is the permission.
 */
export async function handleBlob(method: string, url: URL, request: IncomingMessage, response: ServerResponse, parts: BlobParts): Promise<void> {
	const {contents, blobs, ingestion, clock} = parts;
	const contentId = decodeURIComponent(url.pathname.slice('/blob/'.length));
	const content = contents.record(contentId);
	const token = url.searchParams.get('token');
	if (method === 'PUT') {
		if (content === undefined || token !== content.writeToken) {
			throw new HttpError(403, 'AUTHENTICATION_FAILED', 'The pre-signed write address is not valid');
		}

		const blobType = headerValue(request, 'x-ms-blob-type');
		if (blobType?.toLowerCase() !== 'blockblob') {
			throw badRequest('The x-ms-blob-type: BlockBlob header is required');
		}

		const size = await blobs.receive(content.id, request);
		content.byteSize = size;
		content.blobContentType = headerValue(request, 'content-type');
		content.uploadedAt = isoNow(clock);
		ingestion.start(content);
		response.writeHead(201, {'content-length': '0', 'x-ms-request-id': String(response.getHeader('request-id'))});
		response.end();
		return;
	}

	if (method === 'GET' || method === 'HEAD') {
		if (content === undefined || token !== content.readToken) {
			throw new HttpError(403, 'AUTHENTICATION_FAILED', 'The pre-signed read address is not valid');
		}

		if (!blobs.has(content.id)) {
			throw new HttpError(404, 'BLOB_NOT_FOUND', 'No bytes have been uploaded for this content');
		}

		response.writeHead(200, {
			'content-type': content.blobContentType ?? content.mimeType,
			'content-length': String(content.byteSize ?? 0),
			'x-ms-blob-type': 'BlockBlob',
		});
		if (method === 'HEAD') {
			response.end();
			return;
		}

		await pipeline(createReadStream(blobs.pathOf(content.id)), response);
		return;
	}

	throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on blob addresses`);
}
