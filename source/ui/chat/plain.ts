/**
 * The reply printed as it streams, for a plain (non-screen) run: each poll's new text is written
 * after what is already there; a reply that was rewritten rather than extended starts on a new line.
 */
export type ReplyStream = {
	/** The text to write for the reply as it stands now (empty when nothing changed). */
	next(text: string): string;
	/** What has been written so far. */
	readonly shown: string;
};

export function createReplyStream(): ReplyStream {
	let shown = '';
	return {
		next(text) {
			if (text === shown) {
				return '';
			}

			const chunk = text.startsWith(shown) ? text.slice(shown.length) : `${shown === '' ? '' : '\n'}${text}`;
			shown = text;
			return chunk;
		},
		get shown() {
			return shown;
		},
	};
}
