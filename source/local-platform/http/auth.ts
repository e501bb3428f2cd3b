import type {IncomingMessage} from 'node:http';
import {headerValue, type Caller} from '../context.js';
import {HttpError, badRequest} from './http.js';
import type {KeyRing} from './keys.js';

/** The path that needs only the bearer key (spec 4.1). */
const rotationPath = '/v2/keys/rotate';

/**
 * Every API call needs a live bearer key, `x-app-id` naming this app, and the `x-user-id` and
 * `x-company-id` it acts for. Key rotation only needs the key (spec 4.1); if it sends the
 * other headers they are checked too.
 */
export function authenticate(
	request: IncomingMessage,
	path: string,
	keys: KeyRing,
	app: {appId: string; userId: string; companyId: string},
): Caller {
	const authorization = headerValue(request, 'authorization');
	const match = authorization === undefined ? null : /^Bearer\s+(\S+)$/i.exec(authorization);
	const apiKey = match?.[1];
	if (apiKey === undefined) {
		throw new HttpError(401, 'UNAUTHORIZED', 'Missing or malformed Authorization header; expected "Bearer <API key>"');
	}

	keys.check(apiKey);
	const rotation = path === rotationPath;
	const appId = headerValue(request, 'x-app-id');
	if (appId === undefined && !rotation) {
		throw badRequest('Missing x-app-id header');
	}

	if (appId !== undefined && appId !== app.appId) {
		throw new HttpError(401, 'UNAUTHORIZED', `The API key does not belong to app "${appId}"`);
	}

	const userId = headerValue(request, 'x-user-id');
	const companyId = headerValue(request, 'x-company-id');
	if (!rotation && (userId === undefined || companyId === undefined)) {
		throw badRequest(`Missing ${userId === undefined ? 'x-user-id' : 'x-company-id'} header`);
	}

	return {userId: userId ?? app.userId, companyId: companyId ?? app.companyId, apiKey};
}
