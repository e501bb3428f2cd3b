import {describe, expect, it} from 'vitest';
import {buildContext, noResultsContext} from '../../source/receiver/answer/answer-text.js';

describe('buildContext', () => {
	it('cuts each text to 500 characters and joins with a line ---', () => {
		const long = 'x'.repeat(700);
		expect(buildContext([{text: long}, {text: 'short'}])).toEqual({context: `${'x'.repeat(500)}\n---\nshort`, documents: 2});
	});

	it('cuts characters, not UTF-16 units', () => {
		const emoji = '🙂'.repeat(600);
		const {context} = buildContext([{text: emoji}]);
		expect(Array.from(context)).toHaveLength(500);
		expect(context).toBe('🙂'.repeat(500));
	});

	it('uses the string form of items without text', () => {
		expect(buildContext([{title: 'No text', id: 1}, 'plain', 42]).context).toBe('{"title":"No text","id":1}\n---\nplain\n---\n42');
	});

	it('falls back to the fixed sentence when the results are empty or absent', () => {
		for (const results of [[], null, undefined, {}]) {
			expect(buildContext(results)).toEqual({context: noResultsContext, documents: 0});
		}
	});
});
