/**
 * The one tokenizer: splits argv into positionals and flag values from the flag declarations, so
 * it knows which flags take a value (`--data-dir X events list` and `events --data-dir X list` read
 * alike). `--flag=value` and `--flag value` mean the same for every flag, booleans included
 * (`--json=false`); `--no-flag` turns a boolean off; a repeatable flag keeps every value in order;
 * `--` ends the flags. Values stay strings: a command's `parse` checks them (validators.ts).
 */
import {kebab} from './kebab.js';
import {closest} from './suggest.js';
import type {FlagSpec} from './types.js';

export type TokenProblem =
	| {kind: 'unknown-flag'; flag: string; suggestion?: string}
	| {kind: 'not-a-flag'; token: string}
	| {kind: 'missing-value'; flag: string; placeholder: string}
	| {kind: 'bad-boolean'; flag: string; value: string};

export type Tokens = {
	/** The words that are not flags or flag values, in order. */
	positionals: string[];
	/** Where each positional stands in argv. */
	positionalIndexes: number[];
	/** Camel-cased names; a repeatable flag holds an array; defaults filled in (not for a flag with an environment variable: flag-values.ts reads flag > env > default). */
	flags: Record<string, unknown>;
	/** The first mistake met (the rest of argv is still read). */
	problem?: TokenProblem;
};

const booleanWords: Record<string, boolean> = {true: true, false: false, yes: true, no: false, 1: true, 0: false};

/** The camel-cased name each `--kebab-name` and `-x` stands for. */
function indexSpecs(specs: Record<string, FlagSpec>): {long: Map<string, string>; short: Map<string, string>} {
	const long = new Map<string, string>();
	const short = new Map<string, string>();
	for (const [name, spec] of Object.entries(specs)) {
		long.set(kebab(name), name);
		if (spec.shortFlag) {
			short.set(spec.shortFlag, name);
		}
	}

	return {long, short};
}

/** A token shaped like a flag (`--name`, `--name=…`, `-x`); anything else starting with `-` is a word. */
function flagShaped(token: string): boolean {
	return /^--[a-zA-Z][\w-]*(=[\s\S]*)?$/.test(token) || /^-[a-zA-Z]+$/.test(token);
}

type Options = {
	/** Flags not in `specs` are skipped without a problem (finding the command words before the command is known). */
	lenient?: boolean;
};

export function tokenize(argv: readonly string[], specs: Record<string, FlagSpec>, options: Options = {}): Tokens {
	const {long, short} = indexSpecs(specs);
	const tokens: Tokens = {positionals: [], positionalIndexes: [], flags: {}};
	const note = (problem: TokenProblem): void => {
		tokens.problem ??= problem;
	};

	const set = (name: string, value: unknown): void => {
		const spec = specs[name];
		if (spec?.isMultiple) {
			const previous = tokens.flags[name];
			tokens.flags[name] = [...(Array.isArray(previous) ? previous as unknown[] : []), value];
		} else {
			tokens.flags[name] = value;
		}
	};

	/** Reads the flag `name` written as `written`; returns how many extra tokens it used. */
	const readFlag = (name: string, written: string, inline: string | undefined, next: string | undefined): number => {
		const spec = specs[name];
		if (spec?.type === 'boolean') {
			if (inline === undefined) {
				set(name, true);
			} else if (inline.toLowerCase() in booleanWords) {
				set(name, booleanWords[inline.toLowerCase()]);
			} else {
				note({kind: 'bad-boolean', flag: written, value: inline});
			}

			return 0;
		}

		if (inline !== undefined) {
			set(name, inline);
			return 0;
		}

		if (next === undefined || next === '--') {
			note({kind: 'missing-value', flag: written, placeholder: spec?.placeholder ?? 'VALUE'});
			return 0;
		}

		set(name, next);
		return 1;
	};

	let index = 0;
	for (; index < argv.length; index++) {
		const token = argv[index] ?? '';
		if (token === '--') {
			break;
		}

		if (!token.startsWith('-') || token === '-') {
			tokens.positionals.push(token);
			tokens.positionalIndexes.push(index);
			continue;
		}

		if (!flagShaped(token)) {
			if (!options.lenient) {
				note({kind: 'not-a-flag', token});
			}

			tokens.positionals.push(token);
			tokens.positionalIndexes.push(index);
			continue;
		}

		if (token.startsWith('--')) {
			const [written = '', ...valueParts] = token.slice(2).split('=');
			const inline = valueParts.length > 0 ? valueParts.join('=') : undefined;
			const name = long.get(written);
			if (name !== undefined) {
				index += readFlag(name, `--${written}`, inline, argv[index + 1]);
				continue;
			}

			const negated = written.startsWith('no-') ? long.get(written.slice(3)) : undefined;
			if (negated !== undefined && specs[negated]?.type === 'boolean' && inline === undefined) {
				set(negated, false);
				continue;
			}

			if (!options.lenient) {
				const suggestion = closest(written, [...long.keys()]);
				note({kind: 'unknown-flag', flag: `--${written}`, ...(suggestion ? {suggestion: `--${suggestion}`} : {})});
			}

			continue;
		}

		// `-abc`: clustered short flags; the last may take the next token as its value.
		const letters = token.slice(1).split(/(?=[a-zA-Z])/); // ASCII letters only (flagShaped)
		for (const [position, letter] of letters.entries()) {
			const name = short.get(letter);
			if (name === undefined) {
				if (!options.lenient) {
					note({kind: 'unknown-flag', flag: `-${letter}`});
				}

				continue;
			}

			const last = position === letters.length - 1;
			index += readFlag(name, `-${letter}`, undefined, last ? argv[index + 1] : undefined);
		}
	}

	for (let rest = index + 1; rest < argv.length; rest++) {
		tokens.positionals.push(argv[rest] ?? '');
		tokens.positionalIndexes.push(rest);
	}

	for (const [name, spec] of Object.entries(specs)) {
		if (tokens.flags[name] === undefined && spec.default !== undefined && spec.env === undefined) {
			tokens.flags[name] = spec.default;
		}
	}

	return tokens;
}
