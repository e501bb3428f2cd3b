/**
 * Notice rows: lines of the event log that are about no event (listen's stream opened, gap,
 * refused), given to the screen by the command beside the receiver's events. One wording: the
 * plain line (`noticeLine`) and the screen's rows (notice-rows.ts) say the same words. Light (no
 * width measuring): the plain and --json runs load it.
 */
import {heldFeed} from './held-feed.js';

/** quiet: chatter (dim, one line); the others wrap so no word is lost. */
export type NoticeTone = 'quiet' | 'info' | 'warn' | 'error';

export type Notice = {
	kind: 'notice';
	/** `14:00:01`. */
	time: string;
	/** A short word in the label column, e.g. `socket` or `GAP`. */
	label: string;
	text: string;
	tone: NoticeTone;
};

export type NoticeListener = (notice: Notice) => void;

/** Where the screen hears notices from. */
export type NoticeSource = {on(listener: NoticeListener): () => void};

/** Columns of the label: the longest label, `socket` (labels are short ASCII words). */
export const labelColumns = 6;

/** `14:00:01  socket  `: what comes before a notice's text. */
export function noticeHead(notice: Notice): string {
	return `${notice.time}  ${notice.label.padEnd(labelColumns)}  `;
}

/** The notice as one plain line (no width). */
export function noticeLine(notice: Notice): string {
	return `${noticeHead(notice)}${notice.text}`;
}

/**
 * A notice source the command pushes into: notices pushed before the screen listens (its effects
 * run after the first render) are kept (up to 1000) and handed to the first listener.
 */
export function noticeFeed(): NoticeSource & {push(notice: Notice): void} {
	return heldFeed<Notice>(1000);
}
