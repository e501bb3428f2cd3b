import {describe, expect, it} from 'vitest';
import {wrapParagraphs} from '../../source/ui/wrap.js';

describe('wrapParagraphs', () => {
	it('wraps at the width with no space left at either end of a row, even when a word fills a row exactly', () => {
		const rows = wrapParagraphs('aaaa bbbb cccc dddd eeee', 14).split('\n');
		expect(rows).toEqual(['aaaa bbbb cccc', 'dddd eeee']);
	});

	it('keeps explicit line breaks, blank lines and each line\'s indentation on the rows it wraps into', () => {
		const text = 'Steps:\n\n  - open the harbour gate and log it\n    code();';
		expect(wrapParagraphs(text, 20).split('\n')).toEqual(['Steps:', '', '  - open the harbour', '  gate and log it', '    code();']);
	});

	it('breaks a word longer than the width and counts wide characters by their columns', () => {
		expect(wrapParagraphs('x'.repeat(25), 10).split('\n')).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
		expect(wrapParagraphs('灯台守は 毎晩 日誌を 書きます', 12).split('\n')).toEqual(['灯台守は', '毎晩 日誌を', '書きます']);
	});

	it('never makes a row wider than the width: a deep indentation is cut to leave 10 columns of text, tabs count as the terminal shows them', () => {
		const deep = wrapParagraphs(`${' '.repeat(18)}one two three four five`, 20).split('\n');
		expect(deep).toEqual(['          one two', '          three four', '          five']);
		const tabbed = wrapParagraphs('\tcode(); more code here', 20).split('\n');
		expect(tabbed).toEqual(['        code(); more', '        code here']);
		expect(wrapParagraphs('narrow terminal', 4).split('\n')).toEqual(['narr', 'ow', 'term', 'inal']);
		for (const row of [...deep, ...tabbed]) {
			expect(row.length).toBeLessThanOrEqual(20);
		}
	});
});
