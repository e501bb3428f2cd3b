/**
 * The one tokenizer: splits argv into positionals and flag values from the flag declarations, so
 * it knows which flags take a value (`--data-dir X events list` and `events --data-dir X list` read
 * alike). `--flag=value` and `--flag value` mean the same for every flag, booleans included
 * (`--json=false`); `--no-flag` turns a boolean off; a repeatable flag keeps every value in order;
 * `--` ends the flags. Values stay strings: a command's `parse` checks them (validators.ts).
 */
import {kebab} from './kebab.js';
import {closest} from './suggest.js';
import type {FlagSpec} from './flag-spec.js';

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

/** The camel-cased name each `--kebab-name` (an alias's too) and `-x` stands for. */
function indexSpecs(specs: Record<string, FlagSpec>): {long: Map<string, string>; short: Map<string, string>} {
	const long = new Map<string, string>();
	const short = new Map<string, string>();
	for (const [name, spec] of Object.entries(specs)) {
		long.set(kebab(name), name);
		for (const alias of spec.aliases ?? []) {
			long.set(kebab(alias), name);
		}

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

/** One reading of argv: the tokens found so far, and how each kind of token adds to them. */
class ArgvReader {
	readonly tokens: Tokens = {positionals: [], positionalIndexes: [], flags: {}};
	private readonly long: Map<string, string>;
	private readonly short: Map<string, string>;

	constructor(private readonly specs: Record<string, FlagSpec>, private readonly options: Options) {
		({long: this.long, short: this.short} = indexSpecs(specs));
	}

	/** Keeps the first problem only. */
	note(problem: TokenProblem): void {
		this.tokens.problem ??= problem;
	}

	word(token: string, index: number): void {
		this.tokens.positionals.push(token);
		this.tokens.positionalIndexes.push(index);
	}

	private set(name: string, value: unknown): void {
		const spec = this.specs[name];
		if (spec?.isMultiple) {
			const previous = this.tokens.flags[name];
			this.tokens.flags[name] = [...(Array.isArray(previous) ? previous as unknown[] : []), value];
		} else {
			this.tokens.flags[name] = value;
		}
	}

	/** Reads the flag `name` written as `written`; returns how many extra tokens it used. */
	private readFlag(name: string, written: string, inline: string | undefined, next: string | undefined): number {
		const spec = this.specs[name];
		if (spec?.type === 'boolean') {
			if (inline === undefined) {
				this.set(name, true);
			} else if (inline.toLowerCase() in booleanWords) {
				this.set(name, booleanWords[inline.toLowerCase()]);
			} else {
				this.note({kind: 'bad-boolean', flag: written, value: inline});
			}

			return 0;
		}

		if (inline !== undefined) {
			this.set(name, inline);
			return 0;
		}

		if (next === undefined || next === '--') {
			this.note({kind: 'missing-value', flag: written, placeholder: spec?.placeholder ?? 'VALUE'});
			return 0;
		}

		this.set(name, next);
		return 1;
	}

	/** `--name`, `--name=value`, `--no-name`; returns how many extra tokens it used. */
	longFlag(token: string, next: string | undefined): number {
		const [written = '', ...valueParts] = token.slice(2).split('=');
		const inline = valueParts.length > 0 ? valueParts.join('=') : undefined;
		const name = this.long.get(written);
		if (name !== undefined) {
			return this.readFlag(name, `--${written}`, inline, next);
		}

		const negated = written.startsWith('no-') ? this.long.get(written.slice(3)) : undefined;
		if (negated !== undefined && this.specs[negated]?.type === 'boolean' && inline === undefined) {
			this.set(negated, false);
			return 0;
		}

		if (!this.options.lenient) {
			// The flags' own names only: a suggestion never names an alias.
			const suggestion = closest(written, Object.keys(this.specs).map(name => kebab(name)));
			this.note({kind: 'unknown-flag', flag: `--${written}`, ...(suggestion ? {suggestion: `--${suggestion}`} : {})});
		}

		return 0;
	}

	/** `-abc`: clustered short flags; the last may take the next token as its value. Returns how many extra tokens it used. */
	shortFlags(token: string, next: string | undefined): number {
		let used = 0;
		const letters = token.slice(1).split(/(?=[a-zA-Z])/); // ASCII letters only (flagShaped)
		for (const [position, letter] of letters.entries()) {
			const name = this.short.get(letter);
			if (name === undefined) {
				if (!this.options.lenient) {
					this.note({kind: 'unknown-flag', flag: `-${letter}`});
				}

				continue;
			}

			const last = position === letters.length - 1;
			used += this.readFlag(name, `-${letter}`, undefined, last ? next : undefined);
		}

		return used;
	}

	/** The defaults of the flags not given (a flag with an environment variable gets its default later). */
	defaults(): void {
		for (const [name, spec] of Object.entries(this.specs)) {
			if (this.tokens.flags[name] === undefined && spec.default !== undefined && spec.env === undefined) {
				this.tokens.flags[name] = spec.default;
			}
		}
	}
}

export function tokenize(argv: readonly string[], specs: Record<string, FlagSpec>, options: Options = {}): Tokens {
	const reader = new ArgvReader(specs, options);
	let index = 0;
	for (; index < argv.length; index++) {
		const token = argv[index] ?? '';
		if (token === '--') {
			break;
		}

		if (!token.startsWith('-') || token === '-') {
			reader.word(token, index);
		} else if (!flagShaped(token)) {
			if (!options.lenient) {
				reader.note({kind: 'not-a-flag', token});
			}

			reader.word(token, index);
		} else {
			index += token.startsWith('--') ? reader.longFlag(token, argv[index + 1]) : reader.shortFlags(token, argv[index + 1]);
		}
	}

	for (let rest = index + 1; rest < argv.length; rest++) {
		reader.word(argv[rest] ?? '', rest);
	}

	reader.defaults();
	return reader.tokens;
}
