/**
 * The rule a flag's range states, in the words of its refusal (`--concurrency must be a whole number
 * from 1 to 1000, …`), of `--help` and of docs/flags.md: one sentence per kind of range.
 */
import {formatCompactDuration} from '../format/duration.js';
import type {FlagRange} from './flag-spec.js';

export function flagRule(range: FlagRange): string {
	switch (range.kind) {
		case 'int': {
			return `a whole number from ${range.min} to ${range.max}`;
		}

		case 'number': {
			const what = range.unit === undefined ? 'a number' : `a number of ${range.unit}`;
			return range.aboveMin ? `${what} above ${range.min} and up to ${range.max}` : `${what} from ${range.min} to ${range.max}`;
		}

		case 'seconds': {
			const min = range.min ?? 0;
			return range.allowZero ? `a number of seconds from ${min} to ${range.max}` : `a number of seconds above ${min} up to ${range.max}`;
		}

		case 'duration': {
			return `a duration ${range.min > 0 ? `from ${formatCompactDuration(range.min)} to ${formatCompactDuration(range.max)}` : `up to ${formatCompactDuration(range.max)}`}`;
		}

		case 'url': {
			return `a URL starting with ${range.protocols.map(protocol => `${protocol}//`).join(' or ')}`;
		}

		case 'choice': {
			return `one of ${range.choices.join(', ')}`;
		}

		case 'text': {
			return 'any text';
		}

		case 'check': {
			return range.rule;
		}
	}
}
