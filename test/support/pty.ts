import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {renameSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {childrenOf} from './children.js';
import {childEnv, cliPath} from './cli.js';
import {VirtualTerminal} from './terminal.js';
import {hangLimitMs} from './wait.js';

/** Strips ANSI escape sequences so assertions read plain text. */
export function stripAnsi(text: string): string {
	// eslint-disable-next-line no-control-regex
	return text.replace(/\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007]*\u0007|\u001B[()][0-9A-B]|\u001B[=>78M]/g, '');
}

export type PtySession = {
	child: ChildProcessWithoutNullStreams;
	/** Everything the program wrote to its terminal so far (ANSI kept). */
	output(): string;
	/** Types into the terminal. */
	write(data: string): void;
	/** Waits until the plain-text output matches, or fails after timeoutMs. */
	waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
	/** Waits for the program to end. */
	exit(timeoutMs?: number): Promise<{code: number | null; output: string}>;
	kill(signal?: NodeJS.Signals): void;
	/** The terminal as a person sees it (screen and scrollback), from everything written so far. */
	terminal(): VirtualTerminal;
	/** Resizes the window (up to 4 times; the program gets SIGWINCH); the terminal re-wraps its lines. */
	resize(columns: number, rows: number): void;
};

function shellQuote(value: string): string {
	return `'${value.replaceAll('\'', '\'\\\'\'')}'`;
}

/**
 * Runs the built CLI inside a pseudo-terminal (util-linux `script`), so stdout and stdin are TTYs
 * and the Ink screen runs. The exit code of the program is `script`'s exit code (-e).
 */
export function runInPty(args: string[], options: {env?: Record<string, string | undefined>; columns?: number; rows?: number; before?: string; resizable?: boolean} = {}): PtySession {
	const command = [process.execPath, cliPath, ...args].map(shellQuote).join(' ');
	const env = childEnv({CI: undefined, TERM: 'xterm-256color', ...options.env});
	const columns = options.columns ?? 100;
	const rows = options.rows ?? 40;
	// A resize waits for the test to ask (a file appears), not for a time: the shell beside the
	// program polls for it (bounded: 10 minutes, and ends with the program), prints the marker the test terminal re-wraps at,
	// and sets the new size on the terminal, which sends the program SIGWINCH.
	const resizeFile = join(tmpdir(), `platform-tui-pty-resize-${randomBytes(6).toString('hex')}`);
	// Both sides at once, as a terminal's window resizes (one TIOCSWINSZ, 0x5414 on Linux): `stty
	// cols C rows R` sets them one after the other, so the program saw a size the window never had
	// (60×50 between 200×50 and 60×15) and drew for it while the terminal was already 60×15. The
	// marker is written right before the new size is set, as a terminal re-wraps and then tells the
	// program: what the program writes in between is read at the new size, as on a real terminal.
	// Where it may (root), the two run at a real-time priority, so a loaded machine does not pause
	// between them and a frame of the program's rarely falls in between (docs/serve.md says what a
	// frame in that instant may leave).
	const setSize = shellQuote('open(my $t, "+<", "/dev/tty") or die "no tty"; syswrite($t, "\\e]697;resize;$ARGV[0];$ARGV[1]\\a"); ioctl($t, 0x5414, pack("S4", $ARGV[1], $ARGV[0], 0, 0)) or die "TIOCSWINSZ: $!"');
	// Up to 4 resizes, in order: the n-th waits for its own file (the path with -n).
	const resizer = `(rt=''; chrt -f 1 true 2>/dev/null && rt='chrt -f 1'; k=1; while [ $k -le 4 ]; do f=${shellQuote(resizeFile)}-$k; n=0; while [ ! -e "$f" ] && [ $n -lt 12000 ] && kill -0 $$ 2>/dev/null; do sleep 0.05; n=$((n+1)); done; [ -e "$f" ] || break; read c r < "$f"; $rt perl -e ${setSize} "$c" "$r"; k=$((k+1)); done) & `;
	const before = options.before === undefined ? '' : `printf '%s\\n' ${shellQuote(options.before)}; `;
	const sized = `stty cols ${columns} rows ${rows} 2>/dev/null; ${before}${options.resizable ? resizer : ''}exec ${command}`;
	const child = spawn('script', ['-qefc', sized, '/dev/null'], {env, stdio: ['pipe', 'pipe', 'pipe']});
	let output = '';
	let resizes = 0;
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		output += chunk;
	});
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		output += chunk;
	});
	const exited = new Promise<number | null>(resolve => {
		child.on('close', code => {
			for (let index = 1; index <= 4; index++) {
				rmSync(`${resizeFile}-${index}`, {force: true});
			}
			resolve(code);
		});
	});
	return {
		child,
		output: () => output,
		write(data) {
			child.stdin.write(data);
		},
		async waitFor(pattern, timeoutMs = hangLimitMs) {
			const deadline = Date.now() + timeoutMs;
			while (Date.now() < deadline) {
				const plain = stripAnsi(output);
				if (typeof pattern === 'string' ? plain.includes(pattern) : pattern.test(plain)) {
					return plain;
				}

				if (child.exitCode !== null) {
					break;
				}

				await sleep(50);
			}

			throw new Error(`Timed out waiting for ${String(pattern)}; the terminal showed:\n${stripAnsi(output)}`);
		},
		async exit(timeoutMs = hangLimitMs) {
			const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
			const code = await exited;
			clearTimeout(timer);
			return {code, output: stripAnsi(output)};
		},
		kill(signal = 'SIGTERM') {
			if (signal === 'SIGKILL' && child.pid !== undefined) {
				// The program leads a session of its own under `script`, and a pty's hang-up does not
				// always end it: its session goes too, so a failed test leaves no program running.
				for (const leader of childrenOf(child.pid)) {
					try {
						process.kill(-leader, 'SIGKILL');
					} catch {
						// Gone already.
					}
				}
			}

			child.kill(signal);
		},
		terminal() {
			const terminal = new VirtualTerminal(columns, rows);
			terminal.write(output);
			return terminal;
		},
		resize(newColumns, newRows) {
			resizes++;
			if (resizes > 4) {
				throw new Error('a pty session resizes at most 4 times');
			}

			// Written whole, then named: the shell's loop sees the file only once it holds the size (a
			// file it found between its creation and its write read as no size, and the terminal was
			// set to 0×0, which the program draws as 80 columns).
			const file = `${resizeFile}-${resizes}`;
			writeFileSync(`${file}.part`, `${newColumns} ${newRows}\n`);
			renameSync(`${file}.part`, file);
		},
	};
}
