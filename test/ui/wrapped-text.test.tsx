import {Box, Text, type TextProps} from 'ink';
import {render} from 'ink-testing-library';
import type {ReactNode} from 'react';
import {describe, expect, it} from 'vitest';
import {dropWrapSpace, WrappedText} from '../../source/ui/components/wrapped-text.js';

/** 50 columns up to "files": the row fills its width exactly, and Ink's wrap moves the space after it to the next row. */
function doneLine(Line: (props: TextProps) => ReactNode) {
	return (
		<Box width={50}>
			<Line><Text color='green'>Done</Text>: chat chat_uaxhiifxsir90xp6zsf55ges · 4 files asked about · 810 ms</Line>
		</Box>
	);
}

describe('WrappedText', () => {
	it('wraps as Ink does, with no space left at the start of a row when the row before it filled its width', () => {
		const plain = render(doneLine(Text));
		expect(plain.lastFrame()?.split('\n')[1]).toBe(' asked about · 810 ms');
		plain.unmount();
		const wrapped = render(doneLine(WrappedText));
		expect(wrapped.lastFrame()?.split('\n')).toEqual(['Done: chat chat_uaxhiifxsir90xp6zsf55ges · 4 files', 'asked about · 810 ms']);
		wrapped.unmount();
	});

	it('keeps the first row as it is and the colour codes that open a later row', () => {
		expect(dropWrapSpace(' first', 0)).toBe(' first');
		expect(dropWrapSpace(' later', 1)).toBe('later');
		expect(dropWrapSpace('\u001B[2m\u001B[32m later', 2)).toBe('\u001B[2m\u001B[32mlater');
		expect(dropWrapSpace('  two spaces', 1)).toBe(' two spaces');
		expect(dropWrapSpace('no space', 1)).toBe('no space');
	});
});
