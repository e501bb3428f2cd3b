/** The texts and fixed parameters of the answer (spec §6.2 and §8), and how the context is built. */
import {cutCodePoints, plural} from '../../format/text.js';
import {isRecord} from '../../format/value.js';

/** Texts of the two message logs. */
export const logTexts = {
	searching: 'Searching the knowledge base…',
	found: (count: number) => `Found ${plural(count, 'document')}`,
	generating: 'Generating the response…',
	generated: 'Response generated',
} as const;

/** The context used when the search finds nothing. */
export const noResultsContext = 'No relevant documents were found in the knowledge base.';

/** Written into the assistant message when processing fails. */
export const apologyText = 'Sorry, something went wrong while preparing the answer. Please try again.';

export const searchLimit = 3;
/** Code points kept of each search result. */
export const contextCutCharacters = 500;
export const contextSeparator = '\n---\n';
export const completionTemperature = 0.3;

/** The system message: answer from the supplied context, which is appended. */
export function systemMessage(context: string): string {
	return [
		'You are a helpful assistant. Answer the user\'s question using only the context below.',
		'If the context does not contain the answer, say that you could not find it in the documents.',
		'',
		'Context:',
		context,
	].join('\n');
}

/** The string form of a search result that has no `text`. */
function stringForm(item: unknown): string {
	if (typeof item === 'string') {
		return item;
	}

	if (typeof item === 'object' && item !== null) {
		try {
			return JSON.stringify(item);
		} catch {
			return Object.prototype.toString.call(item);
		}
	}

	// Search results come from JSON: numbers, booleans and null are all that is left, and their
	// JSON form is their string form.
	return item === undefined ? 'undefined' : JSON.stringify(item);
}

/**
 * Builds the context from search results (spec §6.2 step 3): each result's `text` (or, without
 * one, its string form) cut to its first 500 code points, joined with a line `---`; the fixed
 * no-results sentence when the list is empty or absent.
 */
export function buildContext(results: unknown): {context: string; documents: number} {
	const items: unknown[] = Array.isArray(results) ? results : [];
	if (items.length === 0) {
		return {context: noResultsContext, documents: 0};
	}

	const parts = items.map(item => cutCodePoints(isRecord(item) && typeof item.text === 'string' ? item.text : stringForm(item), contextCutCharacters));
	return {context: parts.join(contextSeparator), documents: items.length};
}
