/**
 * A small terminal for pty tests: what a person would see on screen and in the scrollback after
 * the bytes a program wrote. It keeps rows with a "wrapped" mark, wraps at the right margin, and
 * re-wraps its lines when it is resized, as tmux, VTE, iTerm2 and kitty do. It understands the
 * sequences our screens and Ink write (cursor moves, erases, SGR and private modes ignored), and the
 * resize marker `ESC ] 697 ; resize ; COLS ; ROWS BEL` the pty helper prints when it resizes.
 */

type Row = {cells: string[]; wrapped: boolean};

export class VirtualTerminal {
	columns: number;
	rows: number;
	/** Clear-screen or clear-scrollback sequences seen. */
	clears = 0;
	private lines: Row[] = [{cells: [], wrapped: false}];
	private cursor = {row: 0, column: 0};
	private pendingWrap = false;
	private saved = {row: 0, column: 0};

	constructor(columns: number, rows: number) {
		this.columns = columns;
		this.rows = rows;
	}

	/** The first row of the screen; rows above it are the scrollback. */
	get top(): number {
		return Math.max(0, this.lines.length - this.rows);
	}

	write(data: string): void {
		let index = 0;
		while (index < data.length) {
			const char = data[index] ?? '';
			if (char === '\u001B') {
				index = this.escape(data, index);
			} else {
				this.control(char);
				index++;
			}
		}
	}

	/** Every row, scrollback first, trailing blanks cut, trailing empty rows dropped. */
	text(): string[] {
		const rows = this.lines.map(row => row.cells.map(cell => cell || ' ').join('').trimEnd());
		while (rows.length > 0 && rows.at(-1) === '') {
			rows.pop();
		}

		return rows;
	}

	/** The rows on the screen now. */
	screen(): string[] {
		return this.text().slice(this.top);
	}

	resize(columns: number, rows: number): void {
		// Join the rows into the lines they wrap, noting where the cursor is in its line.
		const logical: string[][] = [];
		let cursorLine = 0;
		let cursorOffset = 0;
		let current: string[] = [];
		for (const [index, row] of this.lines.entries()) {
			if (index === this.cursor.row) {
				cursorLine = logical.length;
				cursorOffset = current.length + this.cursor.column + (this.pendingWrap ? 1 : 0);
			}

			const cells = row.wrapped ? [...row.cells, ...Array.from({length: Math.max(0, this.columns - row.cells.length)}, () => ' ')] : row.cells;
			current.push(...cells);
			if (!row.wrapped || index === this.lines.length - 1) {
				logical.push(current);
				current = [];
			}
		}

		logical.length = Math.max(cursorLine + 1, logical.findLastIndex(line => line.some(cell => cell.trim() !== '')) + 1);
		const next: Row[] = [];
		let cursor = {row: 0, column: 0};
		for (const [index, line] of logical.entries()) {
			const trimmed = line.slice(0, line.findLastIndex(cell => cell !== ' ' && cell !== '') + 1);
			const start = next.length;
			for (let offset = 0; offset === 0 || offset < trimmed.length; offset += columns) {
				next.push({cells: trimmed.slice(offset, offset + columns), wrapped: offset + columns < trimmed.length});
			}

			if (index === cursorLine) {
				const row = Math.min(next.length - 1, start + Math.floor(cursorOffset / columns));
				cursor = {row, column: Math.min(columns - 1, cursorOffset - ((row - start) * columns))};
			}
		}

		this.lines = next.length > 0 ? next : [{cells: [], wrapped: false}];
		this.cursor = cursor;
		this.pendingWrap = false;
		this.columns = columns;
		this.rows = rows;
	}

	private control(char: string): void {
		switch (char) {
			case '\n': {
				// As a tty's output processing (onlcr) has it: a new line starts at its first column.
				this.lineFeed();
				this.cursor.column = 0;
				break;
			}

			case '\r': {
				this.cursor.column = 0;
				this.pendingWrap = false;
				break;
			}

			case '\b': {
				this.cursor.column = Math.max(0, this.cursor.column - 1);
				this.pendingWrap = false;
				break;
			}

			case '\u0007': {
				break;
			}

			default: {
				if (char >= ' ') {
					this.print(char);
				}
			}
		}
	}

	private print(char: string): void {
		if (this.pendingWrap) {
			this.row().wrapped = true;
			this.lineFeed();
			this.cursor.column = 0;
			this.pendingWrap = false;
		}

		const row = this.row();
		while (row.cells.length < this.cursor.column) {
			row.cells.push(' ');
		}

		row.cells[this.cursor.column] = char;
		if (this.cursor.column === this.columns - 1) {
			this.pendingWrap = true;
		} else {
			this.cursor.column++;
		}
	}

	private row(): Row {
		while (this.lines.length <= this.cursor.row) {
			this.lines.push({cells: [], wrapped: false});
		}

		return this.lines[this.cursor.row] ?? {cells: [], wrapped: false};
	}

	private lineFeed(): void {
		this.pendingWrap = false;
		this.cursor.row++;
		this.row();
	}

	private escape(data: string, start: number): number {
		const kind = data[start + 1];
		if (kind === '[') {
			let end = start + 2;
			while (end < data.length && !/[@-~]/.test(data[end] ?? '')) {
				end++;
			}

			this.csi(data[end] ?? '', data.slice(start + 2, end));
			return end + 1;
		}

		if (kind === ']') {
			const bell = data.indexOf('\u0007', start);
			const st = data.indexOf('\u001B\\', start);
			const end = Math.min(bell === -1 ? Infinity : bell, st === -1 ? Infinity : st);
			const body = data.slice(start + 2, end === Infinity ? data.length : end);
			const resize = /^697;resize;(\d+);(\d+)$/.exec(body);
			if (resize) {
				this.resize(Number(resize[1]), Number(resize[2]));
			}

			return end === Infinity ? data.length : end + (end === bell ? 1 : 2);
		}

		if (kind === '7') {
			this.saved = {...this.cursor};
		} else if (kind === '8') {
			this.cursor = {...this.saved};
		} else if (kind === '(' || kind === ')') {
			return start + 3;
		}

		return start + 2;
	}

	private csi(final: string, parameters: string): void {
		const values = parameters.replace(/^[?>=]/, '').split(';').map(value => Number.parseInt(value, 10));
		const count = Number.isNaN(values[0]) || values[0] === 0 ? 1 : values[0] ?? 1;
		const {top} = this;
		const bottom = top + this.rows - 1;
		if (!/[ABCDEFGHKJf]/.test(final) || parameters.startsWith('?')) {
			return;
		}

		this.pendingWrap = false;
		switch (final) {
			case 'A': {
				this.cursor.row = Math.max(top, this.cursor.row - count);
				break;
			}

			case 'B': {
				this.cursor.row = Math.min(bottom, this.cursor.row + count);
				break;
			}

			case 'C': {
				this.cursor.column = Math.min(this.columns - 1, this.cursor.column + count);
				break;
			}

			case 'D': {
				this.cursor.column = Math.max(0, this.cursor.column - count);
				break;
			}

			case 'E': {
				this.cursor = {row: Math.min(bottom, this.cursor.row + count), column: 0};
				break;
			}

			case 'F': {
				this.cursor = {row: Math.max(top, this.cursor.row - count), column: 0};
				break;
			}

			case 'G': {
				this.cursor.column = Math.min(this.columns - 1, count - 1);
				break;
			}

			case 'H':
			case 'f': {
				const row = Number.isNaN(values[0]) ? 1 : values[0] ?? 1;
				const column = Number.isNaN(values[1]) ? 1 : values[1] ?? 1;
				this.cursor = {row: top + Math.max(1, row) - 1, column: Math.max(1, column) - 1};
				break;
			}

			case 'K': {
				const row = this.row();
				row.wrapped = false;
				if (parameters === '2') {
					row.cells = [];
				} else if (parameters === '1') {
					for (let column = 0; column <= this.cursor.column && column < row.cells.length; column++) {
						row.cells[column] = ' ';
					}
				} else {
					row.cells.length = Math.min(row.cells.length, this.cursor.column);
				}

				break;
			}

			case 'J': {
				if (parameters === '2' || parameters === '3') {
					this.clears++;
				} else {
					this.row().cells.length = Math.min(this.row().cells.length, this.cursor.column);
					this.lines.length = this.cursor.row + 1;
				}

				break;
			}
		}
	}
}
