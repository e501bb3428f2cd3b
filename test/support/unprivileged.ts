/**
 * The built CLI run as a user without root's rights over files. The test's own user when the
 * tests do not run as root. As root (as CI does) the child stays root but loses the capabilities
 * that let root read, write and enter anything (`setpriv` drops CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH and CAP_FOWNER from every set): file modes then apply to it as to any owner,
 * yet it still reaches the build however the clone's parent folders are set (a clone inside a
 * 0700 folder, as `mktemp -d` and /root give, is out of reach of a user such as nobody). Without
 * setpriv the run fails and says so, rather than failing for a reason that is not the product's.
 */
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {childEnv, cliPath, collectOutput, type CliResult} from './cli.js';
import {hangLimitMs} from './wait.js';

export const asRoot = process.getuid?.() === 0;

/** How the child is told apart from root, for test titles. */
export const unprivilegedHow = asRoot ? 'run as root without the file-permission capabilities' : 'run as this user';

/** The capabilities that bypass file modes; the child runs without them. */
const droppedCapabilities = ['dac_override', 'dac_read_search', 'fowner'];

/** The command that runs `argv` without root's rights over files (argv itself when not root). */
export function unprivilegedCommand(argv: string[]): string[] {
	if (!asRoot) {
		return argv;
	}

	if (spawnSync('setpriv', ['--version'], {stdio: 'ignore'}).status !== 0) {
		throw new Error('The tests run as root and need setpriv (util-linux) to run the CLI without root\'s rights over files; install util-linux or run the tests as another user.');
	}

	return ['setpriv', '--inh-caps=-all', `--bounding-set=${droppedCapabilities.map(name => `-${name}`).join(',')}`, '--', ...argv];
}

export async function runUnprivileged(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
	const home = mkdtempSync(path.join(tmpdir(), 'platform-tui-unprivileged-'));
	const [command = '', ...rest] = unprivilegedCommand([process.execPath, cliPath, ...args]);
	const child = spawn(command, rest, {
		env: childEnv({...env, HOME: home, PLATFORM_TUI_CONFIG_DIR: path.join(home, 'config'), PLATFORM_TUI_DATA_DIR: path.join(home, 'data')}),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const output = collectOutput(child);
	const timer = setTimeout(() => child.kill('SIGKILL'), hangLimitMs);
	try {
		const code = await new Promise<number | null>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', resolve);
		});
		return {code, signal: child.signalCode, stdout: output.stdout(), stderr: output.stderr()};
	} finally {
		clearTimeout(timer);
		rmSync(home, {recursive: true, force: true});
	}
}
