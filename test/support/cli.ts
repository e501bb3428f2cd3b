/** The built-CLI helpers: run platform-tui as a child process (no TTY) and collect its output. */
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {withTestDirs} from './env.js';
import {hangLimitMs} from './wait.js';

/** The built CLI entry (npm test builds first). */
export const cliPath = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export type CliResult = {code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string};

/**
 * The test-only timer setting every child CLI gets (source/config/test-timers.ts): with
 * PLATFORM_TUI_TEST_TIMERS=1 and NODE_ENV=test the built CLI takes BullMQ's lock and stalled-job
 * check in seconds rather than 15 s / 10 s, and the platform client's retry backoff from 10 ms
 * rather than 0.5 s, so no test waits for the product's real timers. The CLI refuses the variable
 * without NODE_ENV=test. A test that needs the real timers passes `PLATFORM_TUI_TEST_TIMERS: undefined`.
 */
export const testTimersEnv = {PLATFORM_TUI_TEST_TIMERS: '1', NODE_ENV: 'test'};

/** Environment for a child CLI: no PLATFORM_* from the parent unless given, CI set (plain output), the test timers. */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
	const inherited: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (!name.startsWith('PLATFORM_') && name !== 'FORCE_COLOR' && !name.startsWith('VITEST') && name !== 'NODE_OPTIONS') {
			inherited[name] = value;
		}
	}

	// The test's own NO_COLOR and CI win over the parent's.
	return withTestDirs({...inherited, NO_COLOR: '1', CI: 'true'}, {...testTimersEnv, ...extra});
}

export type CliProcess = {
	child: ChildProcessWithoutNullStreams;
	/** Everything written to stdout / stderr so far. */
	stdout(): string;
	stderr(): string;
	/** Resolves with the exit code (or null after a signal) once the process has ended. */
	closed: Promise<number | null>;
};

/** Collects a child's stdout and stderr as text while they arrive. */
export function collectOutput(child: {stdout: NodeJS.ReadableStream & {setEncoding(encoding: BufferEncoding): unknown}; stderr: NodeJS.ReadableStream & {setEncoding(encoding: BufferEncoding): unknown}}): {stdout: () => string; stderr: () => string} {
	let stdout = '';
	let stderr = '';
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (chunk: string) => {
		stdout += chunk;
	});
	child.stderr.setEncoding('utf8');
	child.stderr.on('data', (chunk: string) => {
		stderr += chunk;
	});
	return {stdout: () => stdout, stderr: () => stderr};
}

/**
 * Node's arguments that register module hooks in a child before its entry runs: `hooks` is the
 * hooks module's source (`initialize(data)`, `resolve`, `load`), `data` what `initialize` gets.
 */
export function moduleHookArgs(hooks: string, data: Record<string, string>): string[] {
	const hooksUrl = `data:text/javascript,${encodeURIComponent(hooks)}`;
	const registration = `import {register} from 'node:module'; register(${JSON.stringify(hooksUrl)}, {data: ${JSON.stringify(data)}});`;
	return ['--import', `data:text/javascript,${encodeURIComponent(registration)}`];
}

/** Starts the built CLI as a child process (no TTY), collecting its output as it comes; `nodeArgs` go to Node before the entry. */
export function startCli(args: string[], options: {env?: Record<string, string | undefined>; nodeArgs?: string[]} = {}): CliProcess {
	if (!existsSync(cliPath)) {
		throw new Error(`${cliPath} is missing; run \`npm run build\` first`);
	}

	const child = spawn(process.execPath, [...options.nodeArgs ?? [], cliPath, ...args], {env: childEnv(options.env), stdio: ['pipe', 'pipe', 'pipe']});
	const output = collectOutput(child);
	const closed = new Promise<number | null>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', code => {
			resolve(code);
		});
	});
	return {child, stdout: output.stdout, stderr: output.stderr, closed};
}

/** Runs the built CLI as a child process (no TTY) and collects its output. */
export async function runCli(args: string[], options: {env?: Record<string, string | undefined>; input?: string; timeoutMs?: number; nodeArgs?: string[]} = {}): Promise<CliResult> {
	const run = startCli(args, options);
	run.child.stdin.end(options.input ?? '');
	const timeoutMs = options.timeoutMs ?? hangLimitMs;
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => {
			run.child.kill('SIGKILL');
			reject(new Error(`platform-tui ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${run.stdout()}\nstderr: ${run.stderr()}`));
		}, timeoutMs);
	});
	try {
		const code = await Promise.race([run.closed, timedOut]);
		return {code, signal: run.child.signalCode, stdout: run.stdout(), stderr: run.stderr()};
	} finally {
		clearTimeout(timer);
	}
}
