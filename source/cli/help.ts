/**
 * Help text in gh's layout: the description, USAGE, the command's own FLAGS, then the shared
 * flags under INHERITED FLAGS, EXAMPLES and LEARN MORE. Every flag line comes from the flag's
 * declaration (placeholder, default, environment variable), and text is wrapped at word
 * boundaries to the terminal's width, `columns` (at least 40). Without a terminal (`columns`
 * undefined) it is wrapped at 80 columns and USAGE and EXAMPLES lines stay whole (help-lines.ts),
 * so piped help and what is made from it do not change with the window.
 */
import {codePointLength} from '../format/text.js';
import {sharedFlags} from './flags.js';
import {commandLine} from './help-lines.js';
import {kebab} from './kebab.js';
import type {Registry, RegistryEntry} from './registry.js';
import type {FlagSpec} from './flag-spec.js';

export {kebab} from './kebab.js';

export type HelpSpec = {usage: string; description: string; flags: Record<string, FlagSpec>; examples?: string[]};

const defaultColumns = 80;

/** `--port N, -p`: how a flag is written, with its placeholder. */
export function flagText(name: string, spec: FlagSpec): string {
	const value = spec.type === 'boolean' ? '' : ` ${spec.placeholder ?? (spec.type === 'number' ? 'N' : 'VALUE')}`;
	const short = spec.shortFlag ? `, -${spec.shortFlag}` : '';
	return `--${kebab(name)}${value}${short}`;
}

/** The help sentence of a flag with its default and environment variable. */
export function flagDescription(spec: FlagSpec): string {
	const description = spec.description ?? '';
	// A note the description already gives (its own "repeatable", "(env …)") is not said twice.
	const notes = [
		...(spec.default !== undefined && spec.type !== 'boolean' ? [`default ${String(spec.default)}`] : []),
		...(spec.isMultiple ? ['repeatable'] : []),
		...(spec.env ? [`env ${spec.env}`] : []),
	].filter(note => !description.toLowerCase().includes(note.toLowerCase()));
	return `${description}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

function described(flags: Record<string, FlagSpec>): Array<[string, FlagSpec]> {
	return Object.entries(flags).filter(([, spec]) => spec.description);
}

/**
 * Columns of help text. Help is the program's own text, every character of it one column wide
 * (test/cli/help-width.test.ts holds it to that), so its code points are its display width; it is
 * counted so rather than with string-width, which a run without a terminal must not load.
 */
const columnsOf = codePointLength;

/** Splits `text` into lines of at most `width` columns, breaking only between words. */
export function wrapWords(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = '';
	for (const word of text.split(/\s+/).filter(Boolean)) {
		if (line !== '' && columnsOf(line) + 1 + columnsOf(word) > width) {
			lines.push(line);
			line = word;
		} else {
			line = line === '' ? word : `${line} ${word}`;
		}
	}

	return line === '' ? lines : [...lines, line];
}

/** Text narrower than this beside its left cell goes under it instead. */
const narrowestText = 20;
const stackedIndent = 8;

/**
 * One row of a two-column list: the left cell padded to `width`, the text wrapped under itself.
 * Where the window leaves the text too little room (fewer than 20 columns, or less than a word of
 * it), the text goes under the left cell, indented by 8.
 */
function row(left: string, text: string, width: number, columns: number): string {
	const besideRoom = columns - (4 + width) - 1;
	const words = text.split(/\s+/);
	const beside = besideRoom >= narrowestText && words.every(word => columnsOf(word) <= besideRoom);
	const indent = beside ? 4 + width : stackedIndent;
	const [first = '', ...more] = wrapWords(text, columns - indent - 1);
	const head = `    ${left}${' '.repeat(Math.max(0, width - columnsOf(left)))}`;
	// A left cell that leaves no space in its column puts the text on the next line.
	const lines = !beside || columnsOf(left) >= width ? [head.trimEnd(), `${' '.repeat(indent)}${first}`] : [`${head}${first}`];
	return [...lines, ...more.map(line => `${' '.repeat(indent)}${line}`)].join('\n');
}

/** A paragraph, indented by two (or `indent`), wrapped to the terminal. */
function paragraph(text: string, columns: number, indent = 2): string {
	return wrapWords(text, Math.max(20, columns - indent - 1)).map(line => `${' '.repeat(indent)}${line}`).join('\n');
}

function flagRows(flags: Array<[string, FlagSpec]>, width: number, columns: number): string[] {
	return flags.map(([name, spec]) => row(flagText(name, spec), flagDescription(spec), width, columns));
}

function commandRows(entries: readonly RegistryEntry[], columns: number): string {
	const width = Math.max(16, ...entries.map(entry => columnsOf(entry.words.join(' ')) + 2));
	return entries.map(entry => row(entry.words.join(' '), entry.summary, width, columns)).join('\n');
}

function learnMore(columns: number): string {
	return `  LEARN MORE\n${paragraph('Use \'platform-tui help <command>\' (or \'platform-tui <command> --help\') for more about a command.', columns, 4)}`;
}

function usable(columns: number | undefined): number {
	return columns === undefined ? defaultColumns : Math.max(40, columns);
}

/** The width command lines break at: none without a terminal. */
function lineWidth(columns: number | undefined): number | undefined {
	return columns === undefined ? undefined : usable(columns);
}

const mainExamples = [
	'platform-tui upload --local ./docs "Summarise these documents"',
	'platform-tui local',
	'platform-tui serve --port 8080',
	'platform-tui keys rotate --yes',
	'platform-tui config list',
	'platform-tui help keys rotate',
];

export function mainHelp(registry: Registry, columns?: number): string {
	const width = usable(columns);
	const top = described(sharedFlags).filter(([name]) => name === 'json' || name === 'debug');
	const flagWidth = 17;
	return `
${paragraph('Work with the platform from the terminal: upload documents and ask about them, receive webhooks, rotate keys.', width)}

  USAGE
${commandLine('platform-tui <command> [flags]', lineWidth(columns), false)}

  COMMANDS
${commandRows(registry, width)}

  FLAGS
${[...flagRows(top, flagWidth, width), row('--help, -h', 'Show help for a command', flagWidth, width), row('--version, -v', 'Show the version', flagWidth, width)].join('\n')}

  EXAMPLES
${mainExamples.map(example => commandLine(example, lineWidth(columns), true)).join('\n')}

${learnMore(width)}
`;
}

export function groupHelp(registry: Registry, group: string, columns?: number): string {
	const entries = registry.filter(entry => entry.words[0] === group);
	return `
  USAGE
${commandLine(`platform-tui ${group} <${entries.map(entry => entry.words[1]).join('|')}> [flags]`, lineWidth(columns), false)}

  COMMANDS
${commandRows(entries, usable(columns))}

${learnMore(usable(columns))}
`;
}

export function commandHelp(spec: HelpSpec, columns?: number): string {
	const width = usable(columns);
	const own = described(spec.flags);
	const inherited = described(sharedFlags);
	// The flag column gives way on a narrow window, so the descriptions keep 30 columns beside it.
	const flagWidth = Math.min(Math.max(24, ...[...own, ...inherited].map(([name, flag]) => columnsOf(flagText(name, flag)))) + 2, 34, Math.max(16, width - 35));
	const sections = [`\n${paragraph(spec.description, width)}`, `  USAGE\n${commandLine(spec.usage, lineWidth(columns), false)}`];
	if (own.length > 0) {
		sections.push(`  FLAGS\n${flagRows(own, flagWidth, width).join('\n')}`);
	}

	sections.push(`  INHERITED FLAGS\n${[...flagRows(inherited, flagWidth, width), row('--help, -h', 'Show help for this command', flagWidth, width)].join('\n')}`);
	if (spec.examples && spec.examples.length > 0) {
		sections.push(`  EXAMPLES\n${spec.examples.map(example => commandLine(example, lineWidth(columns), true)).join('\n')}`);
	}

	return `${sections.join('\n\n')}\n`;
}
