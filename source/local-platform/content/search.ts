import type {SearchResult} from '../records.js';
import type {ContentStore} from './content-store.js';
import type {Caller} from '../context.js';
import {badRequest, objectBody, optionalString, requiredString, type JsonObject} from '../http/http.js';
import {ok, type Route} from '../http/router.js';
import {searchTypes, type ChunkHit, type ChunkIndex, type LocalSearchType} from './search-index.js';

/** A search hit as the API answers it (the wire result plus the local score). */
export type LocalSearchResult = SearchResult & {score: number};

/** Search over the chunk index, scoped to a chat (plus company-wide content). */
export class SearchService {
	constructor(
		private readonly index: ChunkIndex,
		private readonly chatFor: (chatId: string, caller: Caller) => unknown,
	) {}

	/** Chunks of FINISHED content in scope, best first. */
	chunks(query: string, options: {companyId: string; chatId?: string; limit: number; searchType: LocalSearchType}): ChunkHit[] {
		return this.index.search(query, options);
	}

	/** Drops a deleted content's chunks: later searches miss it. */
	forget(contentId: string): void {
		this.index.removeContent(contentId);
	}

	/** POST /search/search: chunks of FINISHED content in scope, best first. */
	search(body: JsonObject, caller: Caller): LocalSearchResult[] {
		const searchString = requiredString(body, 'searchString');
		const searchType = body.searchType ?? 'COMBINED';
		if (typeof searchType !== 'string' || !searchTypes.includes(searchType as LocalSearchType)) {
			throw badRequest(`"searchType" must be one of ${searchTypes.join(', ')}`);
		}

		const limit = body.limit ?? 10;
		if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
			throw badRequest('"limit" must be an integer from 1 to 1000');
		}

		const chatId = optionalString(body, 'chatId');
		if (chatId !== undefined) {
			this.chatFor(chatId, caller);
		}

		return this.index
			.search(searchString, {companyId: caller.companyId, ...(chatId === undefined ? {} : {chatId}), limit, searchType: searchType as LocalSearchType})
			.map(hit => ({
				id: hit.contentId,
				chunkId: hit.chunkId,
				text: hit.text,
				key: hit.key,
				title: hit.title,
				url: hit.url,
				order: hit.order,
				startPage: hit.startPage,
				endPage: hit.endPage,
				score: hit.score,
			}));
	}
}

/** The content routes: upsert, content search, delete and search; `removeBytes` drops a deleted content's blob. */
export function contentRoutes(contents: ContentStore, search: SearchService, removeBytes: (contentId: string) => Promise<void>): Route[] {
	return [
		{operation: 'deleteContent', method: 'DELETE', path: '/content/:contentId', async handle({params, query, caller}) {
			const content = contents.remove(params.contentId ?? '', query.get('chatId') ?? undefined, caller);
			search.forget(content.id);
			await removeBytes(content.id);
			return ok({id: content.id});
		}},
		{operation: 'upsertContent', method: 'POST', path: '/content/upsert', handle: ({body, caller}) => ok(contents.upsert(objectBody(body), caller))},
		{operation: 'searchContent', method: 'POST', path: '/content/search', handle: ({body, caller}) => ok(contents.search(objectBody(body), caller))},
		{operation: 'search', method: 'POST', path: '/search/search', handle: ({body, caller}) => ok(search.search(objectBody(body), caller))},
	];
}
