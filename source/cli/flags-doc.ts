/**
 * docs/flags.md, generated from the flag declarations: the global flags (flags.ts) and each
 * command's own (its module's `flags`). A test compares the file with this text, so the table
 * cannot drift from what the parser, help and completion read.
 */
import {sharedFlags, storeFlags} from './flags.js';
import {flagRule} from './flag-rule.js';
import {flagText} from './help.js';
import type {Registry} from './registry.js';
import type {FlagSpec} from './flag-spec.js';

function cell(text: string): string {
	return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function completes(spec: FlagSpec): string {
	if (spec.complete === undefined) {
		return spec.type === 'boolean' ? '' : 'shell default';
	}

	return typeof spec.complete === 'string' ? spec.complete : spec.complete.join(', ');
}

function table(flags: Record<string, FlagSpec>): string {
	const rows = Object.entries(flags).filter(([, spec]) => spec.description !== undefined).map(([name, spec]) => {
		const value = spec.type === 'boolean' ? 'true/false' : spec.type;
		const fallback = spec.default === undefined || spec.type === 'boolean' ? '' : `\`${String(spec.default)}\``;
		return `| \`${cell(flagText(name, spec))}\` | ${value} | ${spec.isMultiple ? 'yes' : ''} | ${cell(fallback)} | ${spec.range ? cell(flagRule(spec.range)) : ''} | ${spec.env ? `\`${spec.env}\`` : ''} | ${cell(completes(spec))} | ${cell(spec.description ?? '')} |`;
	});
	return ['| Flag | Value | Repeatable | Default | Accepts | Environment | Completes | What it does |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The markdown of docs/flags.md, for every command of `registry`. */
export async function flagsMarkdown(registry: Registry): Promise<string> {
	const sections = [
		'# Flags',
		'',
		'Every flag of every command, generated from the one declaration each flag has (`source/cli/flags.ts` for the global flags, the command\'s own module for the others); the parser, `--help`, the completion scripts and this table all read it. Do not edit by hand: `UPDATE_DOCS=1 npx vitest run --config test/vitest.config.ts test/cli/docs.test.ts` writes it again, and that test fails while it is out of date.',
		'',
		'Every flag may be written `--flag value` or `--flag=value`; a boolean takes `--flag`, `--flag=true`, `--flag=false` or `--no-flag`. A repeatable flag keeps every value in order. `--` ends the flags: an argument that starts with `-` goes after it.',
		'',
		'## Global flags',
		'',
		'Accepted by every command, before or after the command words (`platform-tui --json events list` and `platform-tui events list --json` are the same). `--help` / `-h` and `--version` / `-v` too.',
		'',
		table(sharedFlags),
		'',
		'## Where events are kept',
		'',
		'Declared once and accepted, before or after the command words, by the commands that keep events (`serve`, `trigger`, `events …`).',
		'',
		table(storeFlags),
	];
	for (const entry of registry) {
		const {default: command} = await entry.load();
		const own = Object.fromEntries(Object.entries(command.flags).filter(([name]) => !(name in storeFlags)));
		sections.push('', `## platform-tui ${entry.words.join(' ')}`, '', entry.summary, '', `Usage: \`${command.usage}\``);
		if (Object.values(own).some(spec => spec.description !== undefined)) {
			sections.push('', table(own));
		}
	}

	return `${sections.join('\n')}\n`;
}
