import MiniSearch from 'minisearch';
import {normalizeTerm, terms, tokenize} from './text.js';

export type IndexedChunk = {
	chunkId: string;
	contentId: string;
	companyId: string;
	/** Undefined for company-wide content. */
	chatId: string | undefined;
	key: string;
	title: string;
	url: string | null;
	order: number;
	startPage: number;
	endPage: number;
	text: string;
};

export type LocalSearchType = 'COMBINED' | 'FULL_TEXT' | 'VECTOR';

export const searchTypes: readonly LocalSearchType[] = ['COMBINED', 'FULL_TEXT', 'VECTOR'];

export type ChunkHit = IndexedChunk & {score: number};

/**
 * The full-text index over ingested chunks (MiniSearch, BM25+ ranking).
 *
 * The search types differ only in matching, since there are no embeddings locally:
 * FULL_TEXT matches whole words; COMBINED also matches word prefixes and near misses
 * (edit distance up to 20% of the word); VECTOR is looser still (30%), a cheap stand-in
 * for semantic similarity.
 *
 * A query searches at most `maxQueryTerms` distinct words (the first ones of the question), each
 * matched once however often it is repeated: a 30 000-character question costs what a short one
 * does, where matching every word would take seconds and the memory of the whole index per word.
 * Prefixes are matched only for words of three letters or more, near misses only for words of
 * five or more (a one-letter prefix matches half the vocabulary).
 */
export class ChunkIndex {
	private readonly index = new MiniSearch<IndexedChunk>({
		idField: 'chunkId',
		fields: ['text', 'title'],
		tokenize: (text: string) => tokenize(text),
		processTerm: (term: string) => normalizeTerm(term) ?? null,
	});

	private readonly chunks = new Map<string, IndexedChunk>();
	private readonly byContent = new Map<string, string[]>();

	constructor(private readonly maxQueryTerms = 32) {}

	get size(): number {
		return this.chunks.size;
	}

	replaceContent(contentId: string, chunks: readonly IndexedChunk[]): void {
		this.removeContent(contentId);
		this.index.addAll(chunks);
		for (const chunk of chunks) {
			this.chunks.set(chunk.chunkId, chunk);
		}

		this.byContent.set(contentId, chunks.map(chunk => chunk.chunkId));
	}

	removeContent(contentId: string): void {
		for (const chunkId of this.byContent.get(contentId) ?? []) {
			this.index.discard(chunkId);
			this.chunks.delete(chunkId);
		}

		this.byContent.delete(contentId);
	}

	/** Chunks of one company whose chat is `chatId` or that are company-wide, best first. */
	search(query: string, options: {companyId: string; chatId?: string; limit: number; searchType: LocalSearchType}): ChunkHit[] {
		const searched = terms(query).slice(0, this.maxQueryTerms);
		const share = options.searchType === 'VECTOR' ? 0.3 : 0.2;
		const loose = options.searchType !== 'FULL_TEXT';
		const results = this.index.search(searched.join(' '), {
			combineWith: 'OR',
			// The words are normalized already.
			tokenize: () => searched,
			processTerm: term => term,
			prefix: term => loose && term.length >= 3,
			fuzzy: term => (loose && term.length >= 5 ? share : false),
			maxFuzzy: 2,
			boost: {title: 0.5},
			filter: result => {
				const chunk = this.chunks.get(String(result.id));
				return chunk !== undefined
					&& chunk.companyId === options.companyId
					&& (chunk.chatId === undefined || chunk.chatId === options.chatId);
			},
		});

		const hits: ChunkHit[] = [];
		for (const result of results) {
			const chunk = this.chunks.get(String(result.id));
			if (chunk !== undefined) {
				hits.push({...chunk, score: result.score});
			}

			if (hits.length >= options.limit) {
				break;
			}
		}

		return hits;
	}
}
