/**
 * The lines a live screen has written to the terminal, as the terminal holds them (pure): text,
 * line feeds, carriage returns and the few cursor and erase sequences Ink uses. It answers one
 * question: how many terminal rows the last `count` lines take at a given width, which is what
 * erasing them takes after the window was narrowed (a terminal re-wraps its lines on a resize).
 */
import stringWidth from 'string-width';

/** Lines kept: far more than any frame; older lines are dropped in halves. */
const keptLines = 2000;

export class WrittenLines {
	private lines: string[] = [''];
	/** Each line as written, colours included, when it was written from its start to its end in order. */
	private raw: string[] = [''];
	private row = 0;
	private column = 0;
	/** Lines dropped from the top so far (`line` counts them). */
	private dropped = 0;

	/** The cursor's line, counted from the first line ever written (dropping lines does not change it). */
	get line(): number {
		return this.dropped + this.row;
	}

	/** Follows `data` written to the terminal. */
	write(data: string): void {
		let index = 0;
		while (index < data.length) {
			const char = data[index] ?? '';
			if (char === '\u001B') {
				index = this.escape(data, index);
				continue;
			}

			if (char === '\n') {
				this.down(1);
			} else if (char === '\r') {
				this.column = 0;
			} else if (char >= ' ' || char === '\t') {
				// Printable text up to the next control character, as one piece.
				let end = index + 1;
				while (end < data.length && (data[end] ?? '') >= ' ' && data[end] !== '\u001B' && data[end] !== '\u007F') {
					end++;
				}

				this.put(data.slice(index, end));
				index = end;
				continue;
			}

			index++;
		}
	}

	/** The lines from `line` (counted as `line` counts), `count` of them, as written (colours kept). */
	written(line: number, count: number): string[] {
		const start = line - this.dropped;
		return Array.from({length: count}, (_, offset) => this.raw[start + offset] ?? this.lines[start + offset] ?? '');
	}

	/** The terminal rows each of the last `count` lines (the cursor's line and those above it) takes at `columns`, the topmost first. */
	rowsEach(columns: number, count: number): number[] {
		const rows: number[] = [];
		for (let offset = count - 1; offset >= 0; offset--) {
			const line = this.lines[this.row - offset];
			const width = line === undefined ? 0 : stringWidth(line);
			rows.push(Math.max(1, Math.ceil(width / Math.max(1, columns))));
		}

		return rows;
	}

	private put(text: string): void {
		const line = this.lines[this.row] ?? '';
		const before = line.padEnd(this.column).slice(0, this.column);
		this.lines[this.row] = before + text + line.slice(this.column + text.length);
		// Written at its end the line keeps its colours; written over, it keeps its text only.
		this.raw[this.row] = this.column === line.length ? (this.raw[this.row] ?? '') + text : this.lines[this.row] ?? '';
		this.column += text.length;
	}

	private down(count: number): void {
		this.row += count;
		this.column = 0;
		while (this.lines.length <= this.row) {
			this.lines.push('');
			this.raw.push('');
		}

		if (this.lines.length > keptLines) {
			const dropped = this.lines.length - (keptLines / 2);
			this.lines.splice(0, dropped);
			this.raw.splice(0, dropped);
			this.row -= dropped;
			this.dropped += dropped;
		}
	}

	/** Applies the escape sequence at `start`; returns the index after it. */
	private escape(data: string, start: number): number {
		const kind = data[start + 1];
		if (kind === '[') {
			let end = start + 2;
			while (end < data.length && !/[@-~]/.test(data[end] ?? '')) {
				end++;
			}

			const parameters = data.slice(start + 2, end);
			if (data[end] === 'm' && this.column === (this.lines[this.row] ?? '').length) {
				// A colour at the line's end goes with what is written after it.
				this.raw[this.row] = (this.raw[this.row] ?? '') + data.slice(start, end + 1);
			}

			this.csi(data[end] ?? '', parameters);
			return end + 1;
		}

		if (kind === ']') {
			// OSC (hyperlinks, titles): up to BEL or ST, nothing on the line.
			const bell = data.indexOf('\u0007', start);
			const st = data.indexOf('\u001B\\', start);
			const ends = [bell === -1 ? Infinity : bell + 1, st === -1 ? Infinity : st + 2];
			const end = Math.min(...ends);
			return end === Infinity ? data.length : end;
		}

		return start + 2;
	}

	private csi(final: string, parameters: string): void {
		const first = Number.parseInt(parameters, 10);
		const count = Number.isNaN(first) || first === 0 ? 1 : first;
		switch (final) {
			case 'A': {
				this.row = Math.max(0, this.row - count);
				break;
			}

			case 'B': {
				this.down(count);
				break;
			}

			case 'E': {
				this.down(count);
				break;
			}

			case 'F': {
				this.row = Math.max(0, this.row - count);
				this.column = 0;
				break;
			}

			case 'G': {
				this.column = count - 1;
				break;
			}

			case 'K': {
				const line = this.lines[this.row] ?? '';
				if (parameters === '2') {
					this.lines[this.row] = '';
				} else if (parameters === '1') {
					this.lines[this.row] = ' '.repeat(Math.min(this.column + 1, line.length)) + line.slice(this.column + 1);
				} else {
					this.lines[this.row] = line.slice(0, this.column);
				}

				this.raw[this.row] = this.lines[this.row] ?? '';

				break;
			}

			case 'J': {
				if (parameters === '' || parameters === '0') {
					this.lines[this.row] = (this.lines[this.row] ?? '').slice(0, this.column);
					this.lines.length = this.row + 1;
					this.raw[this.row] = this.lines[this.row] ?? '';
					this.raw.length = this.row + 1;
				}

				break;
			}

			default: {
				break;
			}
		}
	}
}
