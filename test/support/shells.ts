/**
 * Real shells for the completion tests: each script is loaded into zsh, fish or bash and asked
 * what it completes, as a user pressing Tab would. A missing shell skips its suite with one
 * printed line — unless PLATFORM_TUI_REQUIRE_SHELLS=1 (CI), then it fails.
 */
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {hangLimitMs, waitFor} from './wait.js';

export type Shell = 'bash' | 'zsh' | 'fish';

export const shellsRequired = process.env.PLATFORM_TUI_REQUIRE_SHELLS === '1';

/** Why a shell's completion suite cannot run here, or undefined when it can. */
export function shellSkipReason(shell: Shell): string | undefined {
	if (spawnSync(shell, ['--version'], {stdio: 'ignore'}).status === 0) {
		return undefined;
	}

	const reason = `${shell} completion tests skipped: no ${shell} on PATH.`;
	if (shellsRequired) {
		throw new Error(`${reason} PLATFORM_TUI_REQUIRE_SHELLS=1 makes this a failure.`);
	}

	console.log(reason);
	return reason;
}

/** The first field of each line (a word, before fish's tab and description), sorted and unique. */
function words(text: string): string[] {
	return [...new Set(text.split('\n').map(line => line.split('\t')[0]?.trim() ?? '').filter(Boolean))].sort();
}

/** fish: `complete -C LINE` after sourcing the script. */
export function fishComplete(script: string, line: string, env: NodeJS.ProcessEnv): string[] {
	const result = spawnSync('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line], {env, encoding: 'utf8', timeout: hangLimitMs});
	if (result.status !== 0) {
		throw new Error(`fish failed (${String(result.status)}): ${result.stderr}`);
	}

	return words(result.stdout);
}

/** bash: the completion function with COMP_WORDS / COMP_CWORD as readline sets them. */
export function bashComplete(script: string, line: string, env: NodeJS.ProcessEnv): string[] {
	const program = [
		'source "$1"',
		'read -ra COMP_WORDS <<< "$2"',
		'[[ $2 == *" " ]] && COMP_WORDS+=("")',
		'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
		'COMP_LINE="$2"; COMP_POINT=${#2}',
		'_platform_tui',
		// What readline does for `complete -o default` when the function offers nothing: file names.
		'if (( ${#COMPREPLY[@]} == 0 )) && [[ $(complete -p platform-tui) == *"-o default"* ]]; then COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}")); fi',
		'printf "%s\\n" "${COMPREPLY[@]}"',
	].join('\n');
	const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program, 'bash', script, line], {env, encoding: 'utf8', timeout: hangLimitMs});
	if (result.status !== 0) {
		throw new Error(`bash failed (${String(result.status)}): ${result.stderr}`);
	}

	return words(result.stdout);
}

/**
 * zsh: an interactive `zsh -f` in a pseudo-terminal (util-linux `script`) with compinit and the
 * script loaded. `complete(line)` types the line and Tab; a compadd wrapper writes every match the
 * completion system offers to a file. Each step waits for the shell's prompt or a file it writes,
 * never for a time.
 */
export type ZshSession = {complete(line: string): Promise<string[]>; close(): Promise<void>};

export async function startZsh(script: string, directory: string, env: NodeJS.ProcessEnv): Promise<ZshSession> {
	const prompt = 'zsh-ready> ';
	const setup = join(directory, 'setup.zsh');
	const lines = [
		`PS1='${prompt}' RPS1=''`,
		'unsetopt autolist automenu listbeep',
		'autoload -Uz compinit && compinit -u -D',
		`source '${script}'`,
		// Every match offered (not the internal calls that only collect with -O, -A or -D).
		'compadd() {',
		'\tif [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return; fi',
		'\tlocal -a __hits',
		'\tbuiltin compadd -A __hits "$@"',
		'\t(( $#__hits )) && print -rl -- $__hits >> $CAPTURE_OUT',
		'\tbuiltin compadd "$@"',
		'}',
		'bindkey "^I" complete-word',
	];
	writeFileSync(setup, `${lines.join('\n')}\n`);
	const child = spawn('script', ['-qfc', 'zsh -f -i', '/dev/null'], {env: {...env, TERM: 'dumb'}, stdio: ['pipe', 'pipe', 'pipe']});
	let output = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		output += chunk;
	});
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		output += chunk;
	});
	const prompts = () => output.split(prompt).length - 1;
	const closed = new Promise<void>(resolve => {
		child.on('close', () => {
			resolve();
		});
	});
	// A line typed while zsh runs a command would be edited by the terminal, not zle: type each one
	// only once the next prompt shows.
	const run = async (command: string) => {
		const before = prompts();
		child.stdin.write(`${command}\n`);
		await waitFor(() => prompts() > before || child.exitCode !== null, {what: `zsh to run ${command}`});
	};

	// The first line may be typed before zsh reads it: a plain line means the same to the terminal.
	child.stdin.write(`source '${setup}'\n`);
	await waitFor(() => prompts() > 0 || child.exitCode !== null, {what: 'the zsh prompt'});
	let count = 0;
	return {
		async complete(line) {
			count++;
			const out = join(directory, `matches-${count}`);
			const done = join(directory, `done-${count}`);
			rmSync(out, {force: true});
			await run(`CAPTURE_OUT='${out}'`);
			// Tab, then ^U clears the line and a command marks the end: zle handles keys in order.
			child.stdin.write(`${line}\t\u0015: > '${done}'\n`);
			await waitFor(() => existsSync(done) || child.exitCode !== null, {what: `zsh to complete "${line}"`});
			return existsSync(out) ? words(readFileSync(out, 'utf8')) : [];
		},
		async close() {
			child.stdin.end('exit\n');
			await closed;
		},
	};
}
