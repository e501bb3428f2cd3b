/**
 * Help text in gh's layout: the description, USAGE, the command's own FLAGS, then the shared
 * flags under INHERITED FLAGS, EXAMPLES and LEARN MORE.
 */
import {registry, sharedFlags, type RegistryEntry} from './registry.js';
import type {FlagSpec} from './types.js';

export type HelpSpec = {usage: string; description: string; flags: Record<string, FlagSpec>; examples?: string[]};

export function kebab(name: string): string {
	return name.replace(/[A-Z]/g, letter => `-${letter.toLowerCase()}`);
}

function flagText(name: string, spec: FlagSpec): string {
	const value = spec.type === 'boolean' ? '' : ` ${spec.placeholder ?? (spec.type === 'number' ? 'N' : 'VALUE')}`;
	const short = spec.shortFlag ? `, -${spec.shortFlag}` : '';
	return `--${kebab(name)}${value}${short}`;
}

function described(flags: Record<string, FlagSpec>): Array<[string, FlagSpec]> {
	return Object.entries(flags).filter(([, spec]) => spec.description);
}

/** Help lines for the described flags, in one aligned column. */
function flagLines(flags: Array<[string, FlagSpec]>, width: number): string[] {
	return flags.map(([name, spec]) => {
		const defaultPart = spec.default !== undefined && spec.type !== 'boolean' ? ` (default ${String(spec.default)})` : '';
		return `    ${flagText(name, spec).padEnd(width)}${spec.description ?? ''}${defaultPart}`;
	});
}

function commandRows(entries: readonly RegistryEntry[]): string {
	const width = Math.max(16, ...entries.map(entry => entry.words.join(' ').length + 2));
	return entries.map(entry => `    ${entry.words.join(' ').padEnd(width)}${entry.summary}`).join('\n');
}

const learnMore = '  LEARN MORE\n    Use \'platform-tui help <command>\' (or \'platform-tui <command> --help\') for more about a command.';

export function mainHelp(): string {
	return `
  Work with the platform from the terminal: upload documents and ask about them, receive webhooks, rotate keys.

  USAGE
    $ platform-tui <command> [flags]

  COMMANDS
${commandRows(registry)}

  FLAGS
    --json           Print NDJSON events on stdout instead of a screen
    --debug          Show stack traces and a request log (secrets masked)
    --help, -h       Show help for a command
    --version, -v    Show the version

  EXAMPLES
    $ platform-tui upload --local ./docs "Summarise these documents"
    $ platform-tui local
    $ platform-tui serve --port 8080
    $ platform-tui keys rotate --yes
    $ platform-tui config list
    $ platform-tui help keys rotate

${learnMore}
`;
}

export function groupHelp(group: string): string {
	const entries = registry.filter(entry => entry.words[0] === group);
	return `
  USAGE
    $ platform-tui ${group} <${entries.map(entry => entry.words[1]).join('|')}> [flags]

  COMMANDS
${commandRows(entries)}

${learnMore}
`;
}

export function commandHelp(spec: HelpSpec): string {
	const own = described(spec.flags);
	const inherited = described(sharedFlags);
	const width = Math.max(24, ...[...own, ...inherited].map(([name, flag]) => flagText(name, flag).length)) + 2;
	const sections = [`\n  ${spec.description}`, `  USAGE\n    $ ${spec.usage}`];
	if (own.length > 0) {
		sections.push(`  FLAGS\n${flagLines(own, width).join('\n')}`);
	}

	sections.push(`  INHERITED FLAGS\n${flagLines(inherited, width).join('\n')}\n    ${'--help, -h'.padEnd(width)}Show help for this command`);
	if (spec.examples && spec.examples.length > 0) {
		sections.push(`  EXAMPLES\n${spec.examples.map(example => `    $ ${example}`).join('\n')}`);
	}

	return `${sections.join('\n\n')}\n`;
}
