/** Reading argv: which command it names, which flags are unknown, and the flags themselves (meow). */
import {kebab} from './help.js';
import {groups, registry, type RegistryEntry} from './registry.js';
import {closest} from './suggest.js';
import type {FlagSpec} from './types.js';

export type Found =
	| {kind: 'command'; entry: RegistryEntry; rest: string[]}
	| {kind: 'none'}
	| {kind: 'group'; group: string}
	| {kind: 'unknown'; words: string; suggestion?: string};

function allNames(): string[] {
	return [...registry.map(entry => entry.words.join(' ')), ...groups(), 'help'];
}

/** The words of argv that are not flags: those before `--` that do not begin with `-`, and all after it. */
export function positionals(argv: readonly string[]): string[] {
	const end = argv.indexOf('--');
	const before = end === -1 ? argv : argv.slice(0, end);
	const after = end === -1 ? [] : argv.slice(end + 1);
	return [...before.filter(token => !token.startsWith('-')), ...after];
}

/** The command that `argv` names (the longest match of its leading words), and the rest of argv. */
export function findCommand(argv: readonly string[]): Found {
	const [first, second] = positionals(argv);
	if (first === undefined) {
		return {kind: 'none'};
	}

	const match = registry.find(entry => entry.words.length === 2 && entry.words[0] === first && entry.words[1] === second)
		?? registry.find(entry => entry.words.length === 1 && entry.words[0] === first);
	if (match) {
		const rest = [...argv];
		for (const word of match.words) {
			rest.splice(rest.indexOf(word), 1);
		}

		return {kind: 'command', entry: match, rest};
	}

	if (groups().includes(first)) {
		if (second === undefined) {
			return {kind: 'group', group: first};
		}

		const words = `${first} ${second}`;
		const suggestion = closest(words, registry.filter(entry => entry.words[0] === first).map(entry => entry.words.join(' ')));
		return {kind: 'unknown', words, ...(suggestion ? {suggestion} : {})};
	}

	// A subcommand named alone (`rotate`) points to its full name (`keys rotate`).
	const bySubcommand = registry.find(entry => entry.words.length === 2 && entry.words[1] === first);
	const suggestion = bySubcommand ? bySubcommand.words.join(' ') : closest(first, allNames());
	return {kind: 'unknown', words: first, ...(suggestion ? {suggestion} : {})};
}

/** The first flag in argv that `known` does not define, with the closest known one. */
export function unknownFlag(argv: readonly string[], known: Record<string, FlagSpec>): {flag: string; suggestion?: string} | undefined {
	const names = new Set<string>();
	const shorts = new Set<string>();
	for (const [name, spec] of Object.entries(known)) {
		names.add(kebab(name));
		names.add(name);
		if (spec.shortFlag) {
			shorts.add(spec.shortFlag);
		}
	}

	for (const token of argv) {
		if (token === '--') {
			break;
		}

		if (token.startsWith('--')) {
			const name = token.slice(2).split('=')[0] ?? '';
			const bare = name.startsWith('no-') ? name.slice(3) : name;
			if (!names.has(name) && !names.has(bare)) {
				const suggestion = closest(name, Object.keys(known).map(flag => kebab(flag)));
				return {flag: `--${name}`, ...(suggestion ? {suggestion: `--${suggestion}`} : {})};
			}
		} else if (/^-[a-zA-Z]+$/.test(token)) {
			const letter = token.slice(1).split(/(?=[a-zA-Z])/).find(short => !shorts.has(short));
			if (letter) {
				return {flag: `-${letter}`};
			}
		}
	}

	return undefined;
}

/** Whether meow may hold the default: its type matches what meow parses the flag as. */
function defaultFits(spec: FlagSpec): boolean {
	return typeof spec.default === (spec.type === 'boolean' ? 'boolean' : 'string');
}

/**
 * Parses flags with meow. Number flags are read as strings, so a command's `parse` sees `abc` as
 * typed and words every bad value alike (validators.ts).
 */
export async function parseFlags(argv: string[], flags: Record<string, FlagSpec>): Promise<{input: string[]; flags: Record<string, unknown>}> {
	const {default: meow} = await import('meow');
	const meowFlags: Record<string, {type: 'string' | 'boolean'; shortFlag?: string; default?: unknown; isMultiple?: boolean}> = {};
	for (const [name, spec] of Object.entries(flags)) {
		meowFlags[name] = {
			type: spec.type === 'boolean' ? 'boolean' : 'string',
			...(spec.shortFlag ? {shortFlag: spec.shortFlag} : {}),
			// Meow checks a default against the type; number defaults are filled in below.
			...(spec.default === undefined || !defaultFits(spec) ? {} : {default: spec.default}),
			...(spec.isMultiple ? {isMultiple: true} : {}),
		};
	}

	// `--secret-file -` (a lone dash, "standard input") is a value; the parser would take it for a word.
	const stringNames = new Set(Object.entries(flags).filter(([, spec]) => spec.type !== 'boolean').map(([name]) => `--${kebab(name)}`));
	const joined = argv.flatMap((token, index) => (token === '-' && stringNames.has(argv[index - 1] ?? '') ? [] : stringNames.has(token) && argv[index + 1] === '-' ? [`${token}=-`] : [token]));
	const cli = meow({
		importMeta: import.meta,
		argv: joined,
		// Meow's types want literal flag shapes; ours are built at run time.
		flags: meowFlags as never,
		autoHelp: false,
		autoVersion: false,
		allowUnknownFlags: true,
		booleanDefault: undefined,
	});
	const parsed: Record<string, unknown> = cli.flags;
	for (const [name, spec] of Object.entries(flags)) {
		if (spec.default !== undefined && !defaultFits(spec) && parsed[name] === undefined) {
			parsed[name] = spec.default;
		}
	}

	return {input: cli.input, flags: parsed};
}
