/**
 * `platform-tui completion bash|zsh|fish`: prints a completion script generated from the command
 * registry (completion-script.ts). The scripts call `platform-tui completion --event-ids -- <words>`
 * to complete the ids of stored events; that prints the newest ids of the journal (or Redis) the
 * typed words name, and nothing at all when there is none.
 */
import {completionScript, completionShells, type CompletionCommand, type CompletionShell} from '../cli/completion-script.js';
import {sharedFlags} from '../cli/flags.js';
import {describedFlagNames, type Registry} from '../cli/registry.js';
import type {Command, CommandInput, FlagSpec} from '../cli/types.js';
import {UsageError} from '../cli/validators.js';
import {configFilePath, readConfigFile} from '../config/file.js';
import {profileNames} from '../config/profiles.js';
import type {Deps} from '../cli/deps.js';

type CompletionOptions = {kind: 'script'; shell: CompletionShell} | {kind: 'event-ids'; words: string[]} | {kind: 'chat-ids'} | {kind: 'profiles'};

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

/** The flags that take a value (`--data-dir DIR`), under their aliases too: the word after one is no command word. */
function valueFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.type !== 'boolean').flatMap(([name, spec]) => [name, ...spec.aliases ?? []]);
}

async function commandsForCompletion(registry: Registry): Promise<CompletionCommand[]> {
	const loaded = await Promise.all(registry.map(async entry => {
		try {
			const module = await entry.load();
			const flags: Record<string, FlagSpec> = {...module.default.flags, ...sharedFlags};
			const completing = (kind: 'event-id' | 'chat-id' | 'profile') => Object.entries(flags).filter(([, spec]) => spec.complete === kind).map(([name]) => name);
			const {complete} = module.default;
			return {
				words: entry.words, summary: entry.summary, flags: [...describedFlagNames(flags), 'help'], valueFlags: valueFlagNames(flags),
				eventIdArgument: complete === 'event-id', eventIdFlags: completing('event-id'),
				chatIdArgument: complete === 'chat-id', chatIdFlags: completing('chat-id'),
				profileArgument: complete === 'profile', profileFlags: completing('profile'),
			};
		} catch {
			// A command that cannot load still completes by name.
			return {words: entry.words, summary: entry.summary, flags: describedFlagNames(sharedFlags), valueFlags: valueFlagNames(sharedFlags)};
		}
	}));
	return loaded;
}

/** The ids of the chats this machine synced (the upload manifests), the most recent first; nothing on any failure. */
async function printChatIds({context, output}: Deps): Promise<void> {
	try {
		const [{listSyncedChats}, {defaultDataDir}] = await Promise.all([import('../workflow/chats.js'), import('../receiver/journal/open/location.js')]);
		const {chats} = await listSyncedChats(defaultDataDir(context.env));
		for (const id of new Set(chats.map(chat => chat.chatId))) {
			output.print({type: 'chat-id', chatId: id}, `${id}\n`);
		}
	} catch {
		// Nothing to offer.
	}
}

/** The profile names of the config file, one per line; nothing when it cannot be read. */
function printProfiles({context, output}: Deps): void {
	let names: string[] = [];
	try {
		names = profileNames(readConfigFile(configFilePath(context.env)));
	} catch {
		// Nothing to offer.
	}

	for (const name of names) {
		output.print({type: 'profile-name', name}, `${name}\n`);
	}
}

/** `completion <shell>`, or what a script asks while completing (--event-ids, --chat-ids, --profiles). */
function parseCompletion({argv, flags}: CommandInput): CompletionOptions {
	if (flags.eventIds === true) {
		return {kind: 'event-ids', words: argv};
	}

	if (flags.chatIds === true) {
		return {kind: 'chat-ids'};
	}

	if (flags.profiles === true) {
		return {kind: 'profiles'};
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
}

/** The newest ids of the journal (or Redis) the typed words name; nothing on any failure. */
async function printEventIds({context, output}: Deps, words: readonly string[]): Promise<void> {
	// Completing must never print an error into the user's command line: any failure lists nothing.
	try {
		const [{openStore}, {parseStore}] = await Promise.all([import('./events/shared.js'), import('./events/store-flags.js')]);
		const dataDir = typedFlag(words, 'data-dir');
		const redis = typedFlag(words, 'redis');
		const store = parseStore({...(dataDir ? {dataDir} : {}), ...(redis ? {redis} : {})}, context.env);
		const {backend} = await openStore(store, 'read', context.env);
		try {
			const events = await backend.list({limit: 200});
			for (const event of events) {
				output.print({type: 'event-id', id: event.id}, `${event.id}\n`);
			}
		} finally {
			await backend.close();
		}
	} catch {
		// Nothing to offer.
	}
}

/** The command, made with the table of commands that its scripts complete (commands/registry.ts). */
export function completionCommand(registry: Registry): Command<CompletionOptions> {
	return {
		usage,
		description: 'Print a completion script for bash, zsh or fish: commands, subcommands, flags, the ids of stored events where an event id goes (events show, replay, export, trigger --from-event) the ids of synced chats where a chat id goes (chat, --chat) and the config file\'s profiles where a profile goes (--profile, config use)',
		flags: {
			eventIds: {type: 'boolean', default: false},
			chatIds: {type: 'boolean', default: false},
			profiles: {type: 'boolean', default: false},
		},
		examples: [
			'source <(platform-tui completion bash)',
			'platform-tui completion zsh > "${fpath[1]}/_platform-tui"',
			'platform-tui completion fish > ~/.config/fish/completions/platform-tui.fish',
		],
		parse: parseCompletion,
		async run(options, deps) {
			if (options.kind === 'script') {
				const script = completionScript(options.shell, {commands: await commandsForCompletion(registry), topFlags: ['json', 'debug', 'profile', 'help', 'version']});
				deps.output.print({type: 'completion-script', shell: options.shell, script}, script);
				return 0;
			}

			if (options.kind === 'chat-ids') {
				await printChatIds(deps);
				return 0;
			}

			if (options.kind === 'profiles') {
				printProfiles(deps);
				return 0;
			}

			await printEventIds(deps, options.words);
			return 0;
		},
	};
}
