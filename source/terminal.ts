/**
 * What the terminal can do, decided in one place for every command and screen: whether to colour
 * (and so whether reverse video shows), and its columns and rows.
 *
 * Colour, on a terminal only (a pipe gets plain text): `NO_COLOR` (set and not empty) turns it
 * off, whatever else is set; so do `FORCE_COLOR=0` and `TERM=dumb`, unless `FORCE_COLOR` asks for
 * colour (chalk, which Ink draws with, reads FORCE_COLOR the same way). Without colour, reverse
 * video does not show either: a selected row carries `selectedMarker` instead.
 *
 * Size: a pseudo-terminal may report 0 columns or 0 rows (a `stty cols 0`, a pty never sized):
 * that is taken as 80 columns and 24 rows, as a terminal that reports nothing.
 */
export type TerminalEnv = Readonly<Record<string, string | undefined>>;

export const defaultColumns = 80;
export const defaultRows = 24;

/** Marks the selected row when colour (and reverse video) is off. */
export const selectedMarker = '›';

/** Whether output to `stream` is coloured under `env` (see above). */
export function colorEnabled(stream: {isTTY?: boolean}, env: TerminalEnv): boolean {
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') {
		return false;
	}

	if (stream.isTTY !== true) {
		return false;
	}

	const force = env.FORCE_COLOR;
	if (force !== undefined && force !== '') {
		return force !== '0' && force !== 'false';
	}

	return env.TERM !== 'dumb';
}

/**
 * Makes chalk (Ink's colours, reverse video included) follow the same decision: under NO_COLOR or
 * TERM=dumb it is told FORCE_COLOR=0. Called once at start with the process's environment.
 */
export function settleColorEnv(env: Record<string, string | undefined>): void {
	const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
	const dumb = env.TERM === 'dumb' && (env.FORCE_COLOR === undefined || env.FORCE_COLOR === '');
	if (noColor || dumb) {
		env.FORCE_COLOR = '0';
	}
}

/** A terminal's columns; 0 (or none reported by a terminal) is 80; undefined for a stream that is no terminal and reports none. */
export function terminalColumns(stream: {columns?: number; isTTY?: boolean}): number | undefined {
	return sized(stream.columns, stream.isTTY, defaultColumns);
}

/** A terminal's rows; 0 (or none reported by a terminal) is 24; undefined for a stream that is no terminal and reports none. */
export function terminalRows(stream: {rows?: number; isTTY?: boolean}): number | undefined {
	return sized(stream.rows, stream.isTTY, defaultRows);
}

function sized(value: number | undefined, isTTY: boolean | undefined, fallback: number): number | undefined {
	if (value !== undefined && Number.isFinite(value) && value > 0) {
		return Math.floor(value);
	}

	return value === undefined && isTTY !== true ? undefined : fallback;
}
