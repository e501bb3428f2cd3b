import {sentences, terms} from './text.js';

export type ModelMessage = {role: string; content: string};

export const localModelPrefix = '(local model) ';

export const noAnswerText = 'I could not find an answer to that in the supplied context.';

/**
 * The part of a system message that is context rather than instructions: whatever follows the
 * last `Context:` label when there is one, else the whole message.
 */
function contextOf(system: string): {text: string; labelled: boolean} {
	const label = /\bcontext\s*:/gi;
	let end = -1;
	let match: RegExpExecArray | null;
	while ((match = label.exec(system)) !== null) {
		end = match.index + match[0].length;
	}

	return end === -1 ? {text: system, labelled: false} : {text: system.slice(end), labelled: true};
}

/**
 * The built-in deterministic model. It is extractive: it splits the context of the system
 * message(s) into sentences, scores each by the inverse-document-frequency weight of the
 * question's words it contains, and answers with up to three best sentences in their original
 * order, prefixed with "(local model) ". It never invents text; temperature does not change it.
 */
export function localCompletion(messages: readonly ModelMessage[]): string {
	const question = [...messages].reverse().find(message => message.role === 'user')?.content ?? '';
	const questionTerms = terms(question);
	const candidates: string[] = [];
	for (const message of messages) {
		if (message.role !== 'system') {
			continue;
		}

		const {text, labelled} = contextOf(message.content);
		for (const raw of sentences(text)) {
			// Markdown headings, list bullets and quotes are layout, not words of the answer.
			const sentence = raw.replace(/^(?:#{1,6}|[-*+>]|\d+[.)])\s+/, '').trim();
			if (sentence === '' || /^-{3,}$/.test(sentence)) {
				continue;
			}

			// Without a `Context:` label, sentences that talk about "the context" are instructions.
			if (!labelled && /\bcontext\b/i.test(sentence) && !/\bcontext\b/i.test(question)) {
				continue;
			}

			candidates.push(sentence);
		}
	}

	const sentenceTerms = candidates.map(sentence => new Set(terms(sentence)));
	const documentFrequency = new Map<string, number>();
	for (const set of sentenceTerms) {
		for (const term of set) {
			documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
		}
	}

	const scored = candidates.map((sentence, index) => {
		const set = sentenceTerms[index] ?? new Set<string>();
		let score = 0;
		for (const term of questionTerms) {
			if (set.has(term)) {
				score += Math.log(1 + (candidates.length / (documentFrequency.get(term) ?? 1)));
			}
		}

		return {sentence, index, score};
	});

	const best = scored
		.filter(entry => entry.score > 0)
		.sort((a, b) => b.score - a.score || a.index - b.index)
		.slice(0, 3)
		.sort((a, b) => a.index - b.index);

	if (best.length === 0) {
		return localModelPrefix + noAnswerText;
	}

	return localModelPrefix + [...new Set(best.map(entry => entry.sentence))].join(' ');
}
