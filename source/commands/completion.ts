/**
 * `platform-tui completion bash|zsh|fish`: prints a completion script generated from the command
 * registry (completion-script.ts). The scripts call `platform-tui completion --event-ids -- <words>`
 * to complete the ids of stored events; that prints the newest ids of the journal (or Redis) the
 * typed words name, and nothing at all when there is none.
 */
import {completionScript, completionShells, type CompletionCommand, type CompletionShell} from '../cli/completion-script.js';
import {sharedFlags} from '../cli/flags.js';
import {describedFlagNames, type Registry} from '../cli/registry.js';
import type {Command, FlagSpec} from '../cli/types.js';
import {UsageError} from '../cli/validators.js';

type CompletionOptions = {kind: 'script'; shell: CompletionShell} | {kind: 'event-ids'; words: string[]};

const usage = 'platform-tui completion <bash|zsh|fish>';

/** The value of `--name VALUE` or `--name=VALUE` among the typed words. */
function typedFlag(words: readonly string[], name: string): string | undefined {
	for (const [index, word] of words.entries()) {
		if (word === `--${name}`) {
			return words[index + 1];
		}

		if (word.startsWith(`--${name}=`)) {
			return word.slice(name.length + 3);
		}
	}

	return undefined;
}

/** The flags that take a value (`--data-dir DIR`): the word after one is no command word. */
function valueFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.type !== 'boolean').map(([name]) => name);
}

async function commandsForCompletion(registry: Registry): Promise<CompletionCommand[]> {
	const loaded = await Promise.all(registry.map(async entry => {
		try {
			const module = await entry.load();
			const flags: Record<string, FlagSpec> = {...module.default.flags, ...sharedFlags};
			const eventIdFlags = Object.entries(flags).filter(([, spec]) => spec.complete === 'event-id').map(([name]) => name);
			return {words: entry.words, summary: entry.summary, flags: [...describedFlagNames(flags), 'help'], valueFlags: valueFlagNames(flags), eventIdArgument: module.default.complete === 'event-id', eventIdFlags};
		} catch {
			// A command that cannot load still completes by name.
			return {words: entry.words, summary: entry.summary, flags: describedFlagNames(sharedFlags), valueFlags: valueFlagNames(sharedFlags)};
		}
	}));
	return loaded;
}

/** The command, made with the table of commands that its scripts complete (commands/registry.ts). */
export function completionCommand(registry: Registry): Command<CompletionOptions> {
	return {
		usage,
		description: 'Print a completion script for bash, zsh or fish: commands, subcommands, flags, and the ids of stored events where an event id goes (events show, replay, export, trigger --from-event)',
		flags: {
			eventIds: {type: 'boolean', default: false},
		},
		examples: [
			'source <(platform-tui completion bash)',
			'platform-tui completion zsh > "${fpath[1]}/_platform-tui"',
			'platform-tui completion fish > ~/.config/fish/completions/platform-tui.fish',
		],
		parse({argv, flags}) {
			if (flags.eventIds === true) {
				return {kind: 'event-ids', words: argv};
			}

			const [shell, ...extra] = argv;
			if (shell === undefined) {
				throw new UsageError('argument-missing', `Name the shell: ${usage}`);
			}

			if (extra.length > 0) {
				throw new UsageError('too-many-arguments', `Name one shell only: ${usage}`);
			}

			if (!(completionShells as readonly string[]).includes(shell)) {
				throw new UsageError('shell-unknown', `Unknown shell "${shell}"; completion scripts exist for ${completionShells.join(', ')}`);
			}

			return {kind: 'script', shell: shell as CompletionShell};
		},
		async run(options, deps) {
			const {context} = deps;
			if (options.kind === 'script') {
				const script = completionScript(options.shell, {commands: await commandsForCompletion(registry), topFlags: ['json', 'debug', 'help', 'version']});
				context.stdout.write(context.json ? `${JSON.stringify({type: 'completion-script', shell: options.shell, script})}\n` : script);
				return 0;
			}

			// Completing must never print an error into the user's command line: any failure lists nothing.
			try {
				const [{openStore}, {parseStore}] = await Promise.all([import('./events/shared.js'), import('./events/store-flags.js')]);
				const dataDir = typedFlag(options.words, 'data-dir');
				const redis = typedFlag(options.words, 'redis');
				const store = parseStore({...(dataDir ? {dataDir} : {}), ...(redis ? {redis} : {})}, context.env);
				const {backend} = await openStore(store, 'read', context.env);
				try {
					const events = await backend.list({limit: 200});
					context.stdout.write(events.map(event => (context.json ? `${JSON.stringify({type: 'event-id', id: event.id})}\n` : `${event.id}\n`)).join(''));
				} finally {
					await backend.close();
				}
			} catch {
				// Nothing to offer.
			}

			return 0;
		},
	};
}
