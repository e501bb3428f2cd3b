/**
 * A line built of styled pieces that Ink wraps when it is wider than its box. Ink wraps without
 * trimming, so when a row fills its width exactly the space after it starts the next row
 * (wrap.ts): this drops that one space from the start of each row after the first, after the
 * row's colour codes. Text printed as one string is wrapped by `wrapParagraphs` instead, which
 * also keeps indentation; this is for a single paragraph, whose later rows are all wrapped ones.
 */
import {Text, Transform, type TextProps} from 'ink';

/** Colour and style codes (SGR) that may open a row before its first character. */
// eslint-disable-next-line no-control-regex
const leadingStyles = /^((?:\u001B\[[\d;]*m)*) /u;

/** Row `index` of a wrapped paragraph as shown: a later row loses the space a wrap left at its start. */
export function dropWrapSpace(row: string, index: number): string {
	return index === 0 ? row : row.replace(leadingStyles, '$1');
}

export function WrappedText(props: TextProps) {
	return (
		<Transform transform={dropWrapSpace}>
			<Text {...props}/>
		</Transform>
	);
}
