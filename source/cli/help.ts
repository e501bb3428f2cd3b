/**
 * Help text in gh's layout: the description, USAGE, the command's own FLAGS, then the shared
 * flags under INHERITED FLAGS, EXAMPLES and LEARN MORE. Every flag line comes from the flag's
 * declaration (placeholder, default, environment variable), and text is wrapped at word
 * boundaries to the terminal's width (80 columns when stdout is no terminal).
 */
import {codePointLength} from '../format/text.js';
import {sharedFlags} from './flags.js';
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

/** One row of a two-column list: the left cell padded to `width`, the text wrapped under itself. */
function row(left: string, text: string, width: number, columns: number): string {
	const indent = 4 + width;
	const room = Math.max(20, columns - indent - 1);
	const [first = '', ...more] = wrapWords(text, room);
	const head = `    ${left}${' '.repeat(Math.max(0, width - columnsOf(left)))}`;
	// A left cell wider than its column puts the text on the next line.
	const lines = columnsOf(head) > indent ? [head.trimEnd(), `${' '.repeat(indent)}${first}`] : [`${head}${first}`];
	return [...lines, ...more.map(line => `${' '.repeat(indent)}${line}`)].join('\n');
}

/** A paragraph, indented by two, wrapped to the terminal. */
function paragraph(text: string, columns: number): string {
	return wrapWords(text, Math.max(20, columns - 3)).map(line => `  ${line}`).join('\n');
}

function flagRows(flags: Array<[string, FlagSpec]>, width: number, columns: number): string[] {
	return flags.map(([name, spec]) => row(flagText(name, spec), flagDescription(spec), width, columns));
}

function commandRows(entries: readonly RegistryEntry[], columns: number): string {
	const width = Math.max(16, ...entries.map(entry => columnsOf(entry.words.join(' ')) + 2));
	return entries.map(entry => row(entry.words.join(' '), entry.summary, width, columns)).join('\n');
}

function learnMore(columns: number): string {
	return `  LEARN MORE\n${paragraph('Use \'platform-tui help <command>\' (or \'platform-tui <command> --help\') for more about a command.', columns).replaceAll(/^ {2}/gm, '    ')}`;
}

function usable(columns: number | undefined): number {
	return columns !== undefined && columns >= 40 ? columns : defaultColumns;
}

export function mainHelp(registry: Registry, columns?: number): string {
	const width = usable(columns);
	const top = described(sharedFlags).filter(([name]) => name === 'json' || name === 'debug');
	const flagWidth = 17;
	return `
${paragraph('Work with the platform from the terminal: upload documents and ask about them, receive webhooks, rotate keys.', width)}

  USAGE
    $ platform-tui <command> [flags]

  COMMANDS
${commandRows(registry, width)}

  FLAGS
${[...flagRows(top, flagWidth, width), row('--help, -h', 'Show help for a command', flagWidth, width), row('--version, -v', 'Show the version', flagWidth, width)].join('\n')}

  EXAMPLES
    $ platform-tui upload --local ./docs "Summarise these documents"
    $ platform-tui local
    $ platform-tui serve --port 8080
    $ platform-tui keys rotate --yes
    $ platform-tui config list
    $ platform-tui help keys rotate

${learnMore(width)}
`;
}

export function groupHelp(registry: Registry, group: string, columns?: number): string {
	const entries = registry.filter(entry => entry.words[0] === group);
	return `
  USAGE
    $ platform-tui ${group} <${entries.map(entry => entry.words[1]).join('|')}> [flags]

  COMMANDS
${commandRows(entries, usable(columns))}

${learnMore(usable(columns))}
`;
}

export function commandHelp(spec: HelpSpec, columns?: number): string {
	const width = usable(columns);
	const own = described(spec.flags);
	const inherited = described(sharedFlags);
	const flagWidth = Math.min(Math.max(24, ...[...own, ...inherited].map(([name, flag]) => columnsOf(flagText(name, flag)))) + 2, 34);
	const sections = [`\n${paragraph(spec.description, width)}`, `  USAGE\n    $ ${spec.usage}`];
	if (own.length > 0) {
		sections.push(`  FLAGS\n${flagRows(own, flagWidth, width).join('\n')}`);
	}

	sections.push(`  INHERITED FLAGS\n${[...flagRows(inherited, flagWidth, width), row('--help, -h', 'Show help for this command', flagWidth, width)].join('\n')}`);
	if (spec.examples && spec.examples.length > 0) {
		sections.push(`  EXAMPLES\n${spec.examples.map(example => `    $ ${example}`).join('\n')}`);
	}

	return `${sections.join('\n\n')}\n`;
}
