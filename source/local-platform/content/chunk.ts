import type {ExtractedPage} from './extract.js';
import {sentences} from './text.js';

export type Chunk = {order: number; text: string; startPage: number; endPage: number};

function hardSplit(text: string, maxChars: number): string[] {
	const out: string[] = [];
	for (let start = 0; start < text.length; start += maxChars) {
		out.push(text.slice(start, start + maxChars));
	}

	return out;
}

/**
 * Packs each page's paragraphs (then sentences, then fixed slices) into chunks of at most
 * `maxChars` characters. Chunks never span pages, so startPage equals endPage. Stops after
 * `maxChunks` chunks: the rest of the text is not cut up at all.
 */
export function chunkPages(pages: readonly ExtractedPage[], {maxChars = 1000, maxChunks = Number.POSITIVE_INFINITY}: {maxChars?: number; maxChunks?: number} = {}): Chunk[] {
	const chunks: Chunk[] = [];
	for (const {page, text} of pages) {
		if (chunks.length >= maxChunks) {
			break;
		}

		const pieces: string[] = [];
		for (const paragraph of text.split(/\n\s*\n/)) {
			const trimmed = paragraph.trim();
			if (trimmed === '') {
				continue;
			}

			if (trimmed.length <= maxChars) {
				pieces.push(trimmed);
				continue;
			}

			for (const sentence of sentences(trimmed)) {
				pieces.push(...(sentence.length <= maxChars ? [sentence] : hardSplit(sentence, maxChars)));
			}
		}

		let current = '';
		const flush = (): void => {
			if (current !== '') {
				chunks.push({order: chunks.length, text: current, startPage: page, endPage: page});
				current = '';
			}
		};

		for (const piece of pieces) {
			if (current !== '' && current.length + 2 + piece.length > maxChars) {
				flush();
			}

			current = current === '' ? piece : `${current}\n\n${piece}`;
		}

		flush();
	}

	return chunks.slice(0, maxChunks);
}
