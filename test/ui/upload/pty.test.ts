/**
 * The upload screen in a real terminal (util-linux `script`), at 80×24 and 60×15 with a 60-file
 * folder, and narrowed from 80×24 to 60×15 while it uploads (when the screen shows a transfer, not
 * after a time): the screen and the scrollback are never cleared, the line printed before the app
 * is still the first, the files line and the rest-of-the-files summary use one count, and the
 * reply and the history are in the final output, which ends with a newline.
 */
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runInPty, stripAnsi} from '../../support/pty.js';
import {makeFolder} from '../../workflow/helpers.js';

const clearScreen = '\u001B[2J';
const clearScrollback = '\u001B[3J';

/**
 * Runs the built CLI in a pseudo-terminal of `cols`×`rows`; with `resizeTo`, the window is narrowed
 * as soon as the screen shows a file being transferred.
 */
async function runSized(args: string[], size: {cols: number; rows: number; resizeTo?: {cols: number; rows: number}}): Promise<{code: number | null; raw: string; lines: string[]; clears: number}> {
	const session = runInPty(args, {columns: size.cols, rows: size.rows, before: 'printed before the upload', resizable: size.resizeTo !== undefined});
	try {
		if (size.resizeTo) {
			await session.waitFor(/doc-\d\d\.txt\s+\S+ \S+\s+(?:creating content|[█░]+\s+\d+%|finalizing)/, 60_000);
			session.resize(size.resizeTo.cols, size.resizeTo.rows);
		}

		const {code} = await session.exit();
		const terminal = session.terminal();
		return {code, raw: session.output(), lines: terminal.text(), clears: terminal.clears};
	} finally {
		session.kill('SIGKILL');
	}
}

describe('upload screen in a terminal with 60 files', () => {
	let docs: ReturnType<typeof makeFolder>;

	beforeAll(() => {
		const files: Record<string, Buffer> = {};
		for (let index = 0; index < 60; index++) {
			files[`doc-${String(index).padStart(2, '0')}.txt`] = Buffer.concat([Buffer.from('The warranty lasts two years.\n'), Buffer.from(randomBytes(48 * 1024).toString('base64'))]);
		}

		docs = makeFolder(files);
	});

	afterAll(() => {
		docs.cleanup();
	});

	it.each([
		{cols: 80, rows: 24},
		{cols: 60, rows: 15},
		{cols: 80, rows: 24, resizeTo: {cols: 60, rows: 15}},
	])('never clears the terminal at $cols×$rows (resize: $resizeTo) and ends with the reply, the history and a newline', async size => {
		const {code, raw, lines, clears} = await runSized(['upload', '--local', docs.dir, 'How long is the warranty?', '--poll-interval', '0.2', '--concurrency', '2'], size);
		const output = stripAnsi(raw);
		expect(code).toBe(0);
		expect(raw).not.toContain(clearScreen);
		expect(raw).not.toContain(clearScrollback);
		expect(clears).toBe(0);
		expect(lines[0]).toBe('printed before the upload');

		// An active transfer was on screen while uploading.
		expect(output).toMatch(/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/);
		expect(output).toMatch(/doc-\d\d\.txt\s+\S+ \S+\s+(?:creating content|[█░]+\s+\d+%|finalizing)/);
		expect(output).toMatch(/Reply\s+\S/);
		expect(output).toMatch(/History\s+USER\s+How long/);
		expect(output.replaceAll(/\s*\n\s*/g, ' ')).toMatch(/Done: chat chat_\w+ · 60 files asked about/);
		// The last line ends with a newline (after it only the cursor is shown again).
		expect(output.endsWith('\n')).toBe(true);
	});
});
