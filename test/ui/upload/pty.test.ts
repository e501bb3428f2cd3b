/**
 * The upload screen in a real terminal (util-linux `script`), at 80×24 and 60×15 with a 60-file
 * folder, and narrowed from 80×24 to 60×15 while it uploads (when the screen shows a transfer, not
 * after a time): the screen and the scrollback are never cleared, the line printed before the app
 * is still the first, the files line and the rest-of-the-files summary use one count, and the
 * reply and the history are in the final output, which ends with a newline.
 */
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ManualClock} from '../../../source/local-platform/clock.js';
import {listedFinishedRows} from '../../../source/ui/upload/state.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {runInPty, stripAnsi} from '../../support/pty.js';
import {waitFor} from '../../support/wait.js';
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
		if (size.cols === 60 && size.resizeTo === undefined) {
			// The first FINISHED rows are printed, the rest counted (ui/upload/file-rows.ts); each row
			// printed at 60 columns keeps its content id whole.
			const finished = lines.filter(line => line.includes('FINISHED') && !line.includes('not listed'));
			expect(finished).toHaveLength(listedFinishedRows);
			expect(output).toContain(`${60 - listedFinishedRows} more FINISHED files not listed one by one`);
			for (const line of finished) {
				expect(Array.from(line).length).toBeLessThanOrEqual(60);
				expect(line).toMatch(/ cont_[a-z\d]{24}$/);
			}
		}

		expect(output.replaceAll(/\s*\n\s*/g, ' ')).toMatch(/Done: chat chat_\w+ · 60 files asked about/);
		// The last line ends with a newline (after it only the cursor is shown again).
		expect(output.endsWith('\n')).toBe(true);
	});
});

describe('upload screen shrunk and grown back mid-run', () => {
	let clock: ManualClock;
	let platform: TestPlatform;
	let docs: ReturnType<typeof makeFolder>;

	beforeAll(async () => {
		// Ingestion steps wait on this clock, so no file finishes (nothing is printed above the live
		// area) until the test moves it on; each request takes a second, so the transfer rows stay on
		// screen while the window is resized (no sleep decides when it is).
		clock = new ManualClock();
		platform = await startPlatform({clock});
		platform.platform.setFaults({latencyMs: 1000});
		const files: Record<string, string> = {};
		for (let index = 0; index < 30; index++) {
			files[`doc-${String(index).padStart(2, '0')}.txt`] = `The warranty lasts two years. Part ${index}.\n`;
		}

		docs = makeFolder(files);
	});

	afterAll(async () => {
		docs.cleanup();
		await platform.close();
	});

	it('from 200×50 to 60×15 and back: no stale copy of the live area in the scrollback', async () => {
		// A prompt long enough that its line takes four rows at 60 columns: the old frame, re-wrapped,
		// is taller than the window.
		const prompt = `How long is the warranty? ${'Answer in one sentence, citing the document that says so. '.repeat(3)}`.trim();
		const session = runInPty(['upload', docs.dir, prompt, '--poll-interval', '0.2', '--concurrency', '2'], {env: platform.env(), columns: 200, rows: 50, before: 'printed before the upload', resizable: true});
		const fileRows = (frame: string[]) => frame.filter(line => /doc-\d\d\.txt/.test(line)).length;
		// The live frame: from the last totals line to the end, whole (its last line is the key hint).
		const frameOf = (text: string[]) => text.slice(text.findLastIndex(line => line.includes('files uploaded')));
		const frame = async (accept: (frame: string[]) => boolean, what: string) => waitFor(() => session.terminal().text(), {
			until: text => text.at(-1) === 'q or Ctrl+C to cancel' && text.some(line => line.includes('files uploaded')) && accept(frameOf(text)),
			what,
		});
		try {
			const wide = frameOf(await frame(lines => fileRows(lines) > 8 && lines.some(line => /doc-\d\d\.txt\s+\S+ \S+\s+(?:creating content|[█░]+\s+\d+%|finalizing)/.test(line)), 'a transfer on screen'));
			const wideRows = fileRows(wide);
			session.resize(60, 15);
			await frame(lines => fileRows(lines) < wideRows, 'the frame at 60×15');
			session.resize(200, 50);
			const text = await frame(lines => fileRows(lines) === wideRows, 'the frame at 200×50 again');
			// The whole scrollback: the line printed before, the blocks printed once, one live area.
			expect(text[0]).toBe('printed before the upload');
			for (const part of ['files uploaded', 'Ingestion', 'will ask:', 'q or Ctrl+C to cancel']) {
				expect(text.filter(line => line.includes(part))).toHaveLength(1);
			}

			for (let index = 0; index < 30; index++) {
				expect(text.filter(line => line.includes(`doc-${String(index).padStart(2, '0')}.txt`)).length).toBeLessThanOrEqual(1);
			}

			expect(session.terminal().clears).toBe(0);

		} finally {
			session.kill('SIGKILL');
		}
	});
});
