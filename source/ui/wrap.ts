/**
 * Word wrap for text printed once (replies, history): Ink wraps without trimming, so a line that
 * fills its width exactly pushes the space after it to the start of the next line. This wraps
 * each line of the text on its own, with no space left at either end of a wrapped row, and keeps
 * a line's indentation on the rows it wraps into (a hanging indent for lists and code).
 */
import wrapAnsi from 'wrap-ansi';

/** `text` wrapped to `width` columns (at least 10); explicit line breaks stay. */
export function wrapParagraphs(text: string, width: number): string {
	const columns = Math.max(10, Math.floor(width));
	return text.replaceAll('\r\n', '\n').split('\n').map(line => {
		const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
		const body = line.slice(indent.length);
		if (body === '') {
			return line.trimEnd();
		}

		const room = Math.max(10, columns - indent.length);
		return wrapAnsi(body, room, {hard: true, trim: true}).split('\n').map(row => indent + row).join('\n');
	}).join('\n');
}
