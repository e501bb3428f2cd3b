/**
 * The reply printed as it streams, for a plain (non-screen) run: each poll's new text is written
 * after what is already there; a reply that was rewritten rather than extended starts on a new line.
 */
export type StreamPrinter = {
	/** The reply as it stands now. */
	update(text: string): void;
	/** The complete reply; ends the line. */
	finish(text: string): void;
	/** What has been written so far. */
	readonly shown: string;
};

export function createStreamPrinter(write: (chunk: string) => void): StreamPrinter {
	let shown = '';
	const update = (text: string): void => {
		if (text === shown) {
			return;
		}

		if (text.startsWith(shown)) {
			write(text.slice(shown.length));
		} else {
			write(`${shown === '' ? '' : '\n'}${text}`);
		}

		shown = text;
	};

	return {
		update,
		finish(text) {
			update(text);
			write('\n');
		},
		get shown() {
			return shown;
		},
	};
}
