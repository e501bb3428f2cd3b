/** Tokenizing shared by the search index and the local model, so both agree on what a word is. */

const stopWords = new Set([
	'a', 'about', 'after', 'all', 'also', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'been', 'but', 'by', 'can',
	'could', 'did', 'do', 'does', 'for', 'from', 'had', 'has', 'have', 'he', 'her', 'his', 'how', 'i', 'if', 'in',
	'into', 'is', 'it', 'its', 'me', 'my', 'no', 'not', 'of', 'on', 'or', 'our', 'she', 'so', 'than', 'that', 'the',
	'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those', 'to', 'us', 'was', 'we', 'were', 'what',
	'when', 'where', 'which', 'who', 'whom', 'why', 'will', 'with', 'would', 'you', 'your',
]);

const wordPattern = /[\p{L}\p{N}]+/gu;

/** Splits text into words (letters and digits), keeping their original case. */
export function tokenize(text: string): string[] {
	return text.match(wordPattern) ?? [];
}

/** Lowercases a word, drops stop words and strips a plural "s"; returns undefined for dropped words. */
export function normalizeTerm(term: string): string | undefined {
	const lower = term.toLowerCase();
	if (stopWords.has(lower)) {
		return undefined;
	}

	if (lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss')) {
		return lower.slice(0, -1);
	}

	return lower;
}

/** The distinct normalized terms of a text. */
export function terms(text: string): string[] {
	const out = new Set<string>();
	for (const word of tokenize(text)) {
		const term = normalizeTerm(word);
		if (term !== undefined) {
			out.add(term);
		}
	}

	return [...out];
}

/** Splits text into sentences at ., ! and ? followed by white space, and at line breaks. */
export function sentences(text: string): string[] {
	const out: string[] = [];
	for (const line of text.split(/\r?\n/)) {
		for (const sentence of line.split(/(?<=[.!?])\s+/)) {
			const trimmed = sentence.trim();
			if (trimmed.length > 0 && /[\p{L}\p{N}]/u.test(trimmed)) {
				out.push(trimmed);
			}
		}
	}

	return out;
}
