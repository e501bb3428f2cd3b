import {sentences, terms} from '../content/text.js';

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
 * With earlier user turns (a follow-up), their words name the subject: sentences that answer the
 * question about that subject win, and the others are left out when there are any.
 */
export function localCompletion(messages: readonly ModelMessage[]): string {
	const asked = messages.filter(message => message.role === 'user');
	const question = asked.at(-1)?.content ?? '';
	const questionTerms = terms(question);
	// A follow-up: the earlier questions name the subject ("and how long does it last?").
	const subjectTerms = new Set(asked.slice(0, -1).flatMap(message => terms(message.content)));
	for (const term of questionTerms) {
		subjectTerms.delete(term);
	}

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

	const weight = (term: string): number => Math.log(1 + (candidates.length / (documentFrequency.get(term) ?? 1)));
	const scored = candidates.map((sentence, index) => {
		const set = sentenceTerms[index] ?? new Set<string>();
		let score = 0;
		let subject = 0;
		for (const term of questionTerms) {
			if (set.has(term)) {
				score += weight(term);
			}
		}

		for (const term of subjectTerms) {
			if (set.has(term)) {
				subject += weight(term);
			}
		}

		return {sentence, index, score: score + (score > 0 ? subject / 2 : 0), onSubject: subject > 0};
	});

	// When some sentences answer the question about the earlier subject, the others are left out.
	const aboutSubject = scored.some(entry => entry.score > 0 && entry.onSubject);
	const best = scored
		.filter(entry => entry.score > 0 && (!aboutSubject || entry.onSubject))
		.sort((a, b) => b.score - a.score || a.index - b.index)
		.slice(0, 3)
		.sort((a, b) => a.index - b.index);

	if (best.length === 0) {
		return localModelPrefix + noAnswerText;
	}

	return localModelPrefix + [...new Set(best.map(entry => entry.sentence))].join(' ');
}
