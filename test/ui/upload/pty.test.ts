/**
 * The upload screen in a real terminal (util-linux `script`), at 80×24 and 60×15 with a 60-file
 * folder, and with a resize while it runs: the screen and the scrollback are never cleared, the
 * reply and the history are in the final output, which ends with a newline.
 */
import {spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {stripAnsi} from '../../support/pty.js';
import {childEnv, cliPath} from '../../support/cli.js';
import {makeFolder} from '../../workflow/helpers.js';

const clearScreen = '\u001B[2J';
const clearScrollback = '\u001B[3J';

function quote(value: string): string {
	return `'${value.replaceAll('\'', '\'\\\'\'')}'`;
}

/** Runs the built CLI in a pseudo-terminal of `cols`×`rows`; `resizeTo` changes the size after `resizeAfterS`. */
async function runSized(args: string[], size: {cols: number; rows: number; resizeTo?: {cols: number; rows: number}; resizeAfterS?: number}): Promise<{code: number | null; raw: string}> {
	const command = [process.execPath, cliPath, ...args].map(quote).join(' ');
	const resize = size.resizeTo ? `(sleep ${size.resizeAfterS ?? 0.5}; stty cols ${size.resizeTo.cols} rows ${size.resizeTo.rows}) & ` : '';
	const script = `stty cols ${size.cols} rows ${size.rows}; ${resize}exec ${command}`;
	const child = spawn('script', ['-qefc', script, '/dev/null'], {env: childEnv({CI: undefined, TERM: 'xterm-256color'}), stdio: ['pipe', 'pipe', 'pipe']});
	let raw = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		raw += chunk;
	});
	const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
	const code = await new Promise<number | null>(resolve => {
		child.on('close', resolve);
	});
	clearTimeout(timer);
	return {code, raw};
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
		{cols: 80, rows: 24, resizeTo: {cols: 60, rows: 15}, resizeAfterS: 0.8},
	])('never clears the terminal at $cols×$rows (resize: $resizeTo) and ends with the reply, the history and a newline', async size => {
		const {code, raw} = await runSized(['upload', '--local', docs.dir, 'How long is the warranty?', '--poll-interval', '0.2', '--concurrency', '2'], size);
		const output = stripAnsi(raw);
		expect(code).toBe(0);
		expect(raw).not.toContain(clearScreen);
		expect(raw).not.toContain(clearScrollback);
		// An active transfer was on screen while uploading.
		expect(output).toMatch(/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/);
		expect(output).toMatch(/doc-\d\d\.txt\s+\S+ \S+\s+(?:creating content|[█░]+\s+\d+%|finalizing)/);
		expect(output).toMatch(/Reply\s+\S/);
		expect(output).toMatch(/History\s+USER\s+How long/);
		expect(output.replaceAll(/\s*\n\s*/g, ' ')).toMatch(/Done: chat chat_\w+ · 60 files asked about/);
		// The last line ends with a newline (after it only the cursor is shown again).
		expect(output.endsWith('\n')).toBe(true);
	}, 60_000);
});
