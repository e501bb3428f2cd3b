/**
 * Why the CLI reads argv with its own tokenizer (source/cli/tokenize.ts) and not with meow: each
 * form below is one the CLI accepts today and that meow, fed the same flag declarations, reads
 * otherwise. Every case shows both readings side by side; if meow ever reads one as the CLI does,
 * its case fails here and the tokenizer can give that form up.
 */
import meow, {type AnyFlag} from 'meow';
import {describe, expect, it} from 'vitest';
import {globalFlags, sharedFlags} from '../../source/cli/flags.js';
import {tokenize} from '../../source/cli/tokenize.js';
import type {FlagSpec} from '../../source/cli/types.js';

const specs = {
	...sharedFlags,
	...globalFlags,
	dryRun: {type: 'boolean', default: false},
	exclude: {type: 'string', isMultiple: true},
	output: {type: 'string', shortFlag: 'o', placeholder: 'FILE'},
} satisfies Record<string, FlagSpec>;

/** A declaration as meow takes it: its type, repeatable, short flag, aliases and default. */
function meowFlag(spec: FlagSpec): AnyFlag {
	const short = {...(spec.shortFlag ? {shortFlag: spec.shortFlag} : {}), ...(spec.aliases ? {aliases: [...spec.aliases]} : {})};
	const fallback = spec.env === undefined ? spec.default : undefined;
	if (spec.type === 'boolean') {
		return {type: 'boolean', ...short, ...(typeof fallback === 'boolean' ? {default: fallback} : {})};
	}

	return spec.isMultiple ? {type: 'string', isMultiple: true, ...short} : {type: 'string', ...short, ...(typeof fallback === 'string' ? {default: fallback} : {})};
}

/** argv as meow reads it from the same declarations (its own help and version off, unknown flags let through). */
function meowReads(argv: string[], flags: Record<string, FlagSpec> = specs): {input: string[]; flags: Record<string, unknown>} {
	const result = meow({
		argv,
		flags: Object.fromEntries(Object.entries(flags).map(([name, spec]) => [name, meowFlag(spec)])),
		importMeta: import.meta,
		pkg: {name: 'platform-tui'},
		autoHelp: false,
		autoVersion: false,
		allowUnknownFlags: true,
		booleanDefault: undefined,
	});
	return {input: result.input, flags: result.flags};
}

describe('forms the CLI accepts that meow reads otherwise', () => {
	it('a flag that takes a value takes the next token, even one starting with "-"', () => {
		expect(meowReads(['--data-dir', '-x']).flags.dataDir).toBe('');
		expect(tokenize(['--data-dir', '-x'], specs).flags.dataDir).toBe('-x');
	});

	it('a value missing at the end of the line is a mistake, not an empty value', () => {
		expect(meowReads(['--data-dir']).flags.dataDir).toBe(meowReads(['--data-dir=']).flags.dataDir);
		expect(tokenize(['events', 'list', '--data-dir'], specs).problem).toEqual({kind: 'missing-value', flag: '--data-dir', placeholder: 'DIR'});
	});

	it('a boolean takes =yes and =no', () => {
		expect(meowReads(['--json=yes']).flags.json).toBe(false);
		expect(tokenize(['--json=yes'], specs).flags.json).toBe(true);
		expect(tokenize(['--json=no'], specs).flags.json).toBe(false);
	});

	it('a word after a boolean stays a word, `true` and `false` included', () => {
		expect(meowReads(['chat', '--json', 'true']).input).toEqual(['chat']);
		expect(tokenize(['chat', '--json', 'true'], specs)).toMatchObject({positionals: ['chat', 'true'], flags: {json: true}});
	});

	it('a flag is known by its name as written, with a did-you-mean for a near one', () => {
		// meow takes the camelCase name as the flag and leaves `--JSON` no trace at all.
		expect(meowReads(['--dryRun']).flags.dryRun).toBe(true);
		expect(meowReads(['--JSON']).flags).toEqual(meowReads([]).flags);
		expect(tokenize(['--dryRun'], specs).problem).toEqual({kind: 'unknown-flag', flag: '--dryRun', suggestion: '--dry-run'});
		expect(tokenize(['--JSON'], specs).problem).toMatchObject({kind: 'unknown-flag', flag: '--JSON'});
	});

	it('an unknown flag takes no value: the command words around it stay words', () => {
		expect(meowReads(['events', '--dry-run', 'list'], globalFlags).input).toEqual(['events']);
		expect(tokenize(['events', '--dry-run', 'list'], globalFlags, {lenient: true})).toMatchObject({positionals: ['events', 'list']});
	});

	it('a word starting with "-" that is no flag is named as such, not read as short flags', () => {
		expect(meowReads(['upload', 'docs', '-what does it cost?']).flags.help).toBe(true);
		expect(tokenize(['upload', 'docs', '-what does it cost?'], specs)).toMatchObject({flags: {help: false}, problem: {kind: 'not-a-flag', token: '-what does it cost?'}});
	});

	it('a flag given twice keeps its last value', () => {
		expect(() => meowReads(['--data-dir', 'a', '--data-dir', 'b'])).toThrow(/once/);
		expect(tokenize(['--data-dir', 'a', '--data-dir', 'b'], specs).flags.dataDir).toBe('b');
	});
});
