/** Notices (notices.ts) as finished rows of the serve screen's log, within the terminal's width (pure). */
import {cutToWidth, displayWidth, oneLine, padEndToWidth, singleLine} from '../../format/width.js';
import {wrapParagraphs} from '../wrap.js';
import {labelColumns, noticeHead, noticeLine, type Notice, type NoticeTone} from './notices.js';
import {paint} from './rows.js';

/** Lines a wrapped notice takes at most; the last is cut. */
export const maxNoticeLines = 6;

const toneStyle: Record<NoticeTone, string | undefined> = {quiet: 'dim', info: 'cyan', warn: 'yellow', error: 'red'};

/**
 * The notice as finished rows of the log within `width` columns: a quiet one cut to one line,
 * the others wrapped under their text (at most `maxNoticeLines`, the last cut), coloured when asked.
 */
export function noticeRows(notice: Notice, color: boolean, width: number): string[] {
	const indent = displayWidth(noticeHead(notice));
	const room = Math.max(8, width - 1 - indent);
	const style = toneStyle[notice.tone];
	if (notice.tone === 'quiet') {
		return [paint(oneLine(noticeLine(notice), width - 1), style, color)];
	}

	const wrapped = wrapParagraphs(singleLine(notice.text), room).split('\n');
	const shown = wrapped.slice(0, maxNoticeLines);
	if (wrapped.length > maxNoticeLines) {
		shown[maxNoticeLines - 1] = cutToWidth(`${shown[maxNoticeLines - 1] ?? ''} ${wrapped.slice(maxNoticeLines).join(' ')}`, room);
	}

	const label = paint(padEndToWidth(notice.label, labelColumns), style, color);
	return shown.map((text, index) => index === 0
		? `${paint(notice.time, 'dim', color)}  ${label}  ${paint(text, style, color)}`
		: `${' '.repeat(indent)}${paint(text, style, color)}`);
}
