/**
 * Collects log lines and writes them at most every 10 ms: under load one write carries many lines
 * instead of a system call per event.
 */
export function lineWriter(stream: NodeJS.WritableStream): {line(text: string): void; flush(): void} {
	let pending: string[] = [];
	let scheduled = false;
	const flush = () => {
		scheduled = false;
		if (pending.length > 0) {
			const text = pending.join('');
			pending = [];
			stream.write(text);
		}
	};

	return {
		line(text) {
			pending.push(`${text}\n`);
			if (!scheduled) {
				scheduled = true;
				setTimeout(flush, 10);
			}
		},
		flush,
	};
}
