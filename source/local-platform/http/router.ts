import type {Caller} from '../context.js';
import type {ApiOperation} from '../operations.js';
import {HttpError, notFound} from './http.js';

export type RouteResult = {status: number; body: unknown};

export type RouteRequest = {
	method: string;
	url: URL;
	/** The `:name` segments of the route's path, decoded. */
	params: Record<string, string>;
	query: URLSearchParams;
	/** The parsed JSON body (undefined for none). */
	body: unknown;
	caller: Caller;
};

/** One API operation: its name (used by fault rules), method, path pattern and handler. */
export type Route = {
	operation: ApiOperation;
	method: string;
	/** Literal segments and `:name` parameters, e.g. `/space/chat/:chatId/messages`. */
	path: string;
	handle(request: RouteRequest): RouteResult | Promise<RouteResult>;
};

export const ok = (body: unknown): RouteResult => ({status: 200, body});
export const created = (body: unknown): RouteResult => ({status: 201, body});

type Compiled = {route: Route; segments: string[]};

function split(path: string): string[] {
	return path.split('/').filter(segment => segment !== '');
}

/** Matches a method and path against the routes: 404 when no path matches, 405 when only the method is wrong. */
export class Router {
	private readonly compiled: Compiled[];

	constructor(routes: readonly Route[]) {
		this.compiled = routes.map(route => ({route, segments: split(route.path)}));
	}

	get operations(): string[] {
		return [...new Set(this.compiled.map(entry => entry.route.operation))];
	}

	match(method: string, pathname: string): {route: Route; params: Record<string, string>} {
		let segments: string[];
		try {
			segments = split(pathname).map(segment => decodeURIComponent(segment));
		} catch {
			throw notFound(`No route for ${method} ${pathname}`);
		}

		// The most literal path wins, so `/space/chat` is never read as the space named "chat".
		let best: Array<{route: Route; params: Record<string, string>}> = [];
		let bestScore = -1;
		for (const {route, segments: pattern} of this.compiled) {
			const params = matchSegments(pattern, segments);
			if (params === undefined) {
				continue;
			}

			const score = pattern.filter(part => !part.startsWith(':')).length;
			if (score > bestScore) {
				best = [];
				bestScore = score;
			}

			if (score === bestScore) {
				best.push({route, params});
			}
		}

		const found = best.find(entry => entry.route.method === method);
		if (found !== undefined) {
			return found;
		}

		if (best.length > 0) {
			throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${pathname}`);
		}

		throw notFound(`No route for ${method} ${pathname}`);
	}
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
	if (pattern.length !== segments.length) {
		return undefined;
	}

	const params: Record<string, string> = {};
	for (const [index, part] of pattern.entries()) {
		const segment = segments[index] ?? '';
		if (part.startsWith(':')) {
			params[part.slice(1)] = segment;
		} else if (part !== segment) {
			return undefined;
		}
	}

	return params;
}
