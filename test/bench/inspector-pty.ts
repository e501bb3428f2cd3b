/**
 * One run of the real command for the inspector bench: the built `dist/cli.js events --data-dir DIR`
 * in a pseudo-terminal of 80×24 (util-linux `script`), as a user starts it. Measures the time from
 * the spawn to the newest event's id appearing on the terminal, the CPU time the process used by
 * then, and its peak RSS (VmHWM of /proc/<pid>/status) then. Then it pages down `pages` times,
 * PgDn every `keyGapMs` as a held key repeats, until the id the cursor lands on shows, and reads
 * the peak RSS again before `q` quits. Linux only, as the pty tests are.
 */
import {spawn} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {childrenOf} from '../support/children.js';
import {defined} from '../support/defined.js';
import {stripAnsi} from '../support/pty.js';

export type PtyRun = {firstPageMs: number; firstPageCpuMs: number; firstPageRssMiB: number; pagingMs: number; peakRssMiB: number};

/** What to wait for: the newest event's id, then (after `pages` PgDn) the id of the row the cursor lands on. */
export type PtyTarget = {newestId: string; pages: number; keyGapMs: number; pagedId: string};

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const limitMs = 60_000;

function quote(value: string): string {
	return `'${value.replaceAll('\'', '\'\\\'\'')}'`;
}

/** The environment a user's terminal gives: no test or CI settings, colour on. */
function userEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (!name.startsWith('PLATFORM_') && !['CI', 'NODE_ENV', 'NODE_OPTIONS', 'NO_COLOR', 'FORCE_COLOR'].includes(name)) {
			env[name] = value;
		}
	}

	return {...env, TERM: 'xterm-256color'};
}

/** The program's pid: the shell `script` starts execs it, so it is script's child. */
function programPid(scriptPid: number): number {
	return defined(childrenOf(scriptPid)[0], 'the program under script');
}

/** The peak RSS (MiB) of the program. */
function peakRssMiB(scriptPid: number): number {
	const status = readFileSync(`/proc/${programPid(scriptPid)}/status`, 'utf8');
	const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
	if (kib === undefined) {
		throw new Error('no VmHWM in the program\'s /proc status');
	}

	return Number(kib) / 1024;
}

/**
 * The CPU time (ms, user and system, in 10 ms ticks) the program has used: on a loaded machine the
 * time from the spawn grows with the load, this does not.
 */
function cpuMs(scriptPid: number): number {
	// The fields after the command's name (which ends at the last ')'): utime and stime are the 12th and 13th.
	const stat = readFileSync(`/proc/${programPid(scriptPid)}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Opens the inspector on `dataDirectory` in a pty until `target.newestId` shows, pages down, then quits it with `q`. */
export async function runInspectorInPty(dataDirectory: string, target: PtyTarget): Promise<PtyRun> {
	const command = `stty cols 80 rows 24; exec ${[process.execPath, cli, 'events', '--data-dir', dataDirectory].map(quote).join(' ')}`;
	const started = performance.now();
	const child = spawn('script', ['-qefc', command, '/dev/null'], {env: userEnv(), stdio: ['pipe', 'pipe', 'pipe']});
	let output = '';
	let first: {ms: number; cpuMs: number; rss: number; at: number} | undefined;
	let run: PtyRun | undefined;
	let failure: Error | undefined;
	const timer = setTimeout(() => {
		failure = new Error(`the inspector did not show ${first ? target.pagedId : target.newestId} within ${limitMs} ms; it showed:\n${stripAnsi(output).slice(-2000)}`);
		child.kill('SIGKILL');
	}, limitMs);
	const pid = () => child.pid ?? 0;
	const pressPageDown = (left: number) => {
		if (left > 0 && child.exitCode === null) {
			child.stdin.write('\u001B[6~');
			setTimeout(pressPageDown, target.keyGapMs, left - 1);
		}
	};

	const step = () => {
		if (first === undefined && stripAnsi(output).includes(target.newestId)) {
			first = {ms: performance.now() - started, cpuMs: cpuMs(pid()), rss: peakRssMiB(pid()), at: output.length};
			pressPageDown(target.pages);
		} else if (first && run === undefined && stripAnsi(output.slice(first.at)).includes(target.pagedId)) {
			run = {firstPageMs: first.ms, firstPageCpuMs: first.cpuMs, firstPageRssMiB: first.rss, pagingMs: performance.now() - started - first.ms, peakRssMiB: peakRssMiB(pid())};
			child.stdin.write('q');
		}
	};

	const onOutput = (chunk: string) => {
		output += chunk;
		try {
			step();
		} catch (error) {
			failure ??= error instanceof Error ? error : new Error(String(error));
			child.kill('SIGKILL');
		}
	};

	child.stdout.setEncoding('utf8').on('data', onOutput);
	child.stderr.setEncoding('utf8').on('data', onOutput);
	const code = await new Promise<number | null>(resolve => {
		child.on('close', resolve);
	});
	clearTimeout(timer);
	if (failure) {
		throw failure;
	}

	if (run === undefined || code !== 0) {
		throw new Error(`the inspector ended with ${String(code)} before or after its pages; it showed:\n${stripAnsi(output).slice(-2000)}`);
	}

	return run;
}
