/** Reading argv: which command it names (the tokenizer skips the global flags and their values). */
import {globalFlags} from './flags.js';
import {groups, type Registry, type RegistryEntry} from './registry.js';
import {closest} from './suggest.js';
import {tokenize} from './tokenize.js';

export type Found =
	| {kind: 'command'; entry: RegistryEntry; rest: string[]}
	| {kind: 'none'}
	| {kind: 'group'; group: string}
	| {kind: 'unknown'; words: string; suggestion?: string};

function allNames(registry: Registry): string[] {
	return [...registry.map(entry => entry.words.join(' ')), ...groups(registry), 'help'];
}

/** The words of argv that are not flags or the values of global flags. */
export function positionals(argv: readonly string[]): string[] {
	return tokenize(argv, globalFlags, {lenient: true}).positionals;
}

/** The command of `registry` that `argv` names (the longest match of its leading words), and argv without those words. */
export function findCommand(registry: Registry, argv: readonly string[]): Found {
	const {positionals: words, positionalIndexes} = tokenize(argv, globalFlags, {lenient: true});
	const [first, second] = words;
	if (first === undefined) {
		return {kind: 'none'};
	}

	const match = registry.find(entry => entry.words.length === 2 && entry.words[0] === first && entry.words[1] === second)
		?? registry.find(entry => entry.words.length === 1 && entry.words[0] === first);
	if (match) {
		const taken = new Set(positionalIndexes.slice(0, match.words.length));
		return {kind: 'command', entry: match, rest: argv.filter((_token, index) => !taken.has(index))};
	}

	if (groups(registry).includes(first)) {
		if (second === undefined) {
			return {kind: 'group', group: first};
		}

		const words = `${first} ${second}`;
		const suggestion = closest(words, registry.filter(entry => entry.words[0] === first).map(entry => entry.words.join(' ')));
		return {kind: 'unknown', words, ...(suggestion ? {suggestion} : {})};
	}

	// A subcommand named alone (`rotate`) points to its full name (`keys rotate`).
	const bySubcommand = registry.find(entry => entry.words.length === 2 && entry.words[1] === first);
	const suggestion = bySubcommand ? bySubcommand.words.join(' ') : closest(first, allNames(registry));
	return {kind: 'unknown', words: first, ...(suggestion ? {suggestion} : {})};
}
