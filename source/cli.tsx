#!/usr/bin/env node
import process from 'node:process';
import meow from 'meow';
import type {CommandContext, CommandModule, FlagSpec} from './commands/legacy-types.js';
import {formatError, isAbortError, UserError} from './errors.js';

if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') {
	// Chalk (used by Ink) reads FORCE_COLOR; NO_COLOR wins over everything.
	process.env.FORCE_COLOR = '0';
}

type CommandEntry = {
	/** The words that name the command, e.g. ['keys', 'rotate']. */
	words: string[];
	summary: string;
	load: () => Promise<{default: CommandModule}>;
};

/** Every command, one file each; modules load only when their command runs. */
const commands: CommandEntry[] = [
	{words: ['upload'], summary: 'Upload a folder into a new space chat, wait for ingestion and ask a question', load: async () => import('./commands/upload.js')},
	{words: ['serve'], summary: 'Run the webhook receiver with a live event log', load: async () => import('./commands/serve.js')},
	{words: ['trigger'], summary: 'Send a signed test event to a receiver', load: async () => import('./commands/trigger.js')},
	{words: ['keys', 'set'], summary: 'Store the API key (masked prompt, or stdin)', load: async () => import('./commands/keys/set.js')},
	{words: ['keys', 'show'], summary: 'Show the API key (masked), its source and rotation state', load: async () => import('./commands/keys/show.js')},
	{words: ['keys', 'rotate'], summary: 'Rotate the API key; the old key keeps working until it expires', load: async () => import('./commands/keys/rotate.js')},
	{words: ['local'], summary: 'Run the local platform, a stand-in for the real service', load: async () => import('./commands/local.js')},
	{words: ['config', 'list'], summary: 'List every setting, its value (secrets masked) and where it comes from', load: async () => import('./commands/config/list.js')},
	{words: ['config', 'get'], summary: 'Print one setting', load: async () => import('./commands/config/get.js')},
	{words: ['config', 'set'], summary: 'Store one setting', load: async () => import('./commands/config/set.js')},
	{words: ['config', 'path'], summary: 'Print where the settings file is', load: async () => import('./commands/config/path.js')},
	{words: ['init'], summary: 'Set up the settings interactively and check them against the platform', load: async () => import('./commands/init.js')},
];

/** Flags every command accepts. */
export const globalFlags: Record<string, FlagSpec> = {
	json: {type: 'boolean', default: false, description: 'Print NDJSON events on stdout instead of a screen'},
	debug: {type: 'boolean', default: false, description: 'Show stack traces and a request log (secrets masked)'},
	baseUrl: {type: 'string', description: 'Platform base address (PLATFORM_BASE_URL)', placeholder: 'URL'},
	appId: {type: 'string', description: 'Application id (PLATFORM_APP_ID)', placeholder: 'ID'},
	userId: {type: 'string', description: 'User id (PLATFORM_USER_ID)', placeholder: 'ID'},
	companyId: {type: 'string', description: 'Company id (PLATFORM_COMPANY_ID)', placeholder: 'ID'},
	assistantId: {type: 'string', description: 'Space (assistant) id (PLATFORM_ASSISTANT_ID)', placeholder: 'ID'},
	model: {type: 'string', description: 'Chat-completion model (PLATFORM_MODEL)', placeholder: 'NAME'},
	help: {type: 'boolean', default: false, shortFlag: 'h'},
	version: {type: 'boolean', default: false, shortFlag: 'v'},
};

const mainHelp = `
  Usage
    $ platform-tui <command> [options]

  Commands
${commands.map(entry => `    ${entry.words.join(' ').padEnd(16)}${entry.summary}`).join('\n')}

  Global options
    --json           Print NDJSON events on stdout instead of a screen
    --debug          Show stack traces and a request log (secrets masked)
    --help, -h       Show help; \`platform-tui <command> --help\` for a command
    --version, -v    Show the version

  Examples
    $ platform-tui upload --local ./docs "Summarise these documents"
    $ platform-tui local
    $ platform-tui serve --port 8080
    $ platform-tui keys rotate --yes
    $ platform-tui config list
`;

function kebab(name: string): string {
	return name.replace(/[A-Z]/g, letter => `-${letter.toLowerCase()}`);
}

function flagText(name: string, spec: FlagSpec): string {
	const value = spec.type === 'boolean' ? '' : ` ${spec.placeholder ?? (spec.type === 'number' ? 'N' : 'VALUE')}`;
	const short = spec.shortFlag ? `, -${spec.shortFlag}` : '';
	return `--${kebab(name)}${value}${short}`;
}

/** Help lines for the described flags, in one aligned column. */
function flagLines(flags: Record<string, FlagSpec>, width: number): string[] {
	return Object.entries(flags)
		.filter(([, spec]) => spec.description)
		.map(([name, spec]) => {
			const defaultPart = spec.default !== undefined && spec.type !== 'boolean' ? ` (default ${String(spec.default)})` : '';
			return `    ${flagText(name, spec).padEnd(width)}${spec.description ?? ''}${defaultPart}`;
		});
}

function commandHelp(module: CommandModule): string {
	const described = Object.entries({...globalFlags, ...module.flags}).filter(([, spec]) => spec.description);
	const width = Math.max(24, ...described.map(([name, spec]) => flagText(name, spec).length)) + 2;
	const own = flagLines(module.flags, width);
	const global = flagLines(globalFlags, width);
	const sections = [
		`\n  ${module.description}`,
		`  Usage\n    $ ${module.usage}`,
	];
	if (own.length > 0) {
		sections.push(`  Options\n${own.join('\n')}`);
	}

	sections.push(`  Global options\n${global.join('\n')}\n    ${'--help, -h'.padEnd(width)}Show this help`);
	if (module.examples && module.examples.length > 0) {
		sections.push(`  Examples\n${module.examples.map(example => `    $ ${example}`).join('\n')}`);
	}

	return `${sections.join('\n\n')}\n`;
}

/** Finds unknown flags before meow sees them, so they exit 1 with usage instead of being ignored. */
function unknownFlags(argv: string[], known: Record<string, FlagSpec>): string[] {
	const names = new Set<string>();
	const shorts = new Set<string>();
	for (const [name, spec] of Object.entries(known)) {
		names.add(kebab(name));
		names.add(name);
		if (spec.shortFlag) {
			shorts.add(spec.shortFlag);
		}
	}

	const unknown: string[] = [];
	for (const token of argv) {
		if (token === '--') {
			break;
		}

		if (token.startsWith('--')) {
			const name = token.slice(2).split('=')[0] ?? '';
			const bare = name.startsWith('no-') ? name.slice(3) : name;
			if (!names.has(name) && !names.has(bare)) {
				unknown.push(token.split('=')[0] ?? token);
			}
		} else if (/^-[a-zA-Z]+$/.test(token)) {
			for (const letter of token.slice(1)) {
				if (!shorts.has(letter)) {
					unknown.push(`-${letter}`);
				}
			}
		}
	}

	return unknown;
}

/** Splits argv into the command entry and the rest, matching the longest command words. */
function findCommand(argv: string[]): {entry?: CommandEntry; rest: string[]; group?: string} {
	const positionals = argv.filter(token => !token.startsWith('-'));
	const first = positionals[0];
	if (!first) {
		return {rest: argv};
	}

	const second = positionals[1];
	const match = commands.find(entry => entry.words.length === 2 && entry.words[0] === first && entry.words[1] === second)
		?? commands.find(entry => entry.words.length === 1 && entry.words[0] === first);
	if (!match) {
		const isGroup = commands.some(entry => entry.words[0] === first);
		return {rest: argv, ...(isGroup ? {group: first} : {})};
	}

	const rest = [...argv];
	for (const word of match.words) {
		rest.splice(rest.indexOf(word), 1);
	}

	return {entry: match, rest};
}

function groupHelp(group: string): string {
	const entries = commands.filter(entry => entry.words[0] === group);
	return `\n  Usage\n    $ platform-tui ${group} <${entries.map(entry => entry.words[1]).join('|')}> [options]\n\n  Commands\n${entries.map(entry => `    ${entry.words.join(' ').padEnd(16)}${entry.summary}`).join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
	const {stdout, stderr} = process;
	const {entry, rest, group} = findCommand(argv);
	if (!entry) {
		const wantsHelp = argv.includes('--help') || argv.includes('-h');
		if (argv.includes('--version') || argv.includes('-v')) {
			const {version} = await import('./version.js');
			stdout.write(`${version}\n`);
			return 0;
		}

		if (group) {
			(wantsHelp ? stdout : stderr).write(groupHelp(group));
			return wantsHelp ? 0 : 1;
		}

		const first = argv.find(token => !token.startsWith('-'));
		if (wantsHelp && !first) {
			stdout.write(mainHelp);
			return 0;
		}

		stderr.write(first ? `Unknown command: ${first}\n${mainHelp}` : mainHelp);
		return 1;
	}

	const module = (await entry.load()).default;
	const allFlags = {...globalFlags, ...module.flags};
	const unknown = unknownFlags(rest, allFlags);
	if (unknown.length > 0) {
		stderr.write(`Unknown option${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}\n${commandHelp(module)}`);
		return 1;
	}

	const meowFlags: Record<string, {type: FlagSpec['type']; shortFlag?: string; default?: unknown; isMultiple?: boolean}> = {};
	for (const [name, spec] of Object.entries(allFlags)) {
		meowFlags[name] = {
			type: spec.type,
			...(spec.shortFlag ? {shortFlag: spec.shortFlag} : {}),
			...(spec.default === undefined ? {} : {default: spec.default}),
			...(spec.isMultiple ? {isMultiple: true} : {}),
		};
	}

	const cli = meow({
		importMeta: import.meta,
		argv: rest,
		// Meow's types want literal flag shapes; ours are built at run time.
		flags: meowFlags as never,
		autoHelp: false,
		autoVersion: false,
		allowUnknownFlags: true,
		booleanDefault: undefined,
	});
	const flags = cli.flags as Record<string, unknown>;
	if (flags.help === true) {
		stdout.write(commandHelp(module));
		return 0;
	}

	if (flags.version === true) {
		const {version} = await import('./version.js');
		stdout.write(`${version}\n`);
		return 0;
	}

	for (const [name, spec] of Object.entries(allFlags)) {
		if (spec.type === 'number' && flags[name] !== undefined && Number.isNaN(flags[name])) {
			stderr.write(`--${kebab(name)} takes a number.\n${commandHelp(module)}`);
			return 1;
		}
	}

	const controller = new AbortController();
	let interrupts = 0;
	const onSigint = () => {
		interrupts++;
		if (interrupts > 1) {
			process.exit(130);
		}

		controller.abort('SIGINT');
	};

	const onSigterm = () => {
		controller.abort('SIGTERM');
	};

	process.on('SIGINT', onSigint);
	process.on('SIGTERM', onSigterm);
	const json = flags.json === true;
	const debug = flags.debug === true;
	const context: CommandContext = {
		argv: cli.input,
		flags,
		json,
		debug,
		interactive: Boolean(stdout.isTTY) && !process.env.CI && !json,
		stdin: process.stdin,
		stdout,
		stderr,
		env: process.env,
		signal: controller.signal,
	};
	try {
		return await module.run(context);
	} catch (error) {
		if (isAbortError(error) || (controller.signal.aborted && controller.signal.reason === 'SIGINT')) {
			stderr.write('Cancelled.\n');
			return 130;
		}

		const message = formatError(error, debug);
		if (json) {
			stdout.write(`${JSON.stringify({type: 'error', message: error instanceof Error ? error.message : String(error)})}\n`);
		}

		stderr.write(`Error: ${message}\n`);
		return error instanceof UserError ? error.exitCode : 1;
	} finally {
		process.off('SIGINT', onSigint);
		process.off('SIGTERM', onSigterm);
	}
}

const code = await main(process.argv.slice(2));
// Let stdout drain before exiting; open handles (keep-alive sockets) must not hold the process.
process.exitCode = code;
setTimeout(() => process.exit(code), 50).unref();
