/**
 * The shell completion scripts, generated from the command registry and each command's flags, so
 * a command or flag added anywhere completes with no list to keep by hand. Event ids — the
 * argument of a command declared `complete: 'event-id'` (events show, replay, export) and the value
 * of a flag so declared (trigger --from-event) — come at completion time from `platform-tui
 * completion --event-ids`, which reads the journal (or Redis) named by the words typed so far;
 * profile names (--profile, local --save-profile, `config use`'s argument: `complete: 'profile'`)
 * from `platform-tui completion --profiles`, which reads the config file.
 */
import {kebab} from './kebab.js';

export type CompletionShell = 'bash' | 'zsh' | 'fish';

export const completionShells: readonly CompletionShell[] = ['bash', 'zsh', 'fish'];

export type CompletionCommand = {
	/** e.g. ['events', 'show'] */
	words: readonly string[];
	summary: string;
	/** The described (visible) flags, camelCase, own and shared. */
	flags: readonly string[];
	/** The flags that take a value, camelCase: the word after one is that value, not a command word. */
	valueFlags: readonly string[];
	/** Its argument is a stored event id. */
	eventIdArgument?: boolean;
	/** The flags whose value is a stored event id, camelCase. */
	eventIdFlags?: readonly string[];
	/** Its argument is a synced chat's id (`chat`). */
	chatIdArgument?: boolean;
	/** The flags whose value is a synced chat's id (`--chat`), camelCase. */
	chatIdFlags?: readonly string[];
	/** Its argument is a profile of the config file (`config use`). */
	profileArgument?: boolean;
	/** The flags whose value is a profile name, camelCase. */
	profileFlags?: readonly string[];
};

export type CompletionSpec = {
	commands: readonly CompletionCommand[];
	/** The flags a bare `platform-tui` takes. */
	topFlags: readonly string[];
};

const program = 'platform-tui';

/** The names of the commands whose argument is a stored event id (`events show`). */
function eventIdCommands(spec: CompletionSpec): string[] {
	return spec.commands.filter(command => command.eventIdArgument).map(command => command.words.join(' '));
}

/** Every flag whose value is an event id, as a case pattern. */
function eventIdFlagPattern(spec: CompletionSpec): string {
	const names = [...new Set(spec.commands.flatMap(command => command.eventIdFlags ?? []))].sort();
	return names.length === 0 ? '--no-such-flag' : names.map(name => `--${kebab(name)}`).join('|');
}

const idsCommand = (words: string) => `${program} completion --event-ids -- ${words} 2>/dev/null`;

/** Every flag whose value is a synced chat's id, as a case pattern. */
function chatIdFlagPattern(spec: CompletionSpec): string {
	const names = [...new Set(spec.commands.flatMap(command => command.chatIdFlags ?? []))].sort();
	return names.length === 0 ? '--no-such-flag' : names.map(name => `--${kebab(name)}`).join('|');
}

/** The commands whose argument is a synced chat's id (`chat`). */
function chatIdCommands(spec: CompletionSpec): CompletionCommand[] {
	return spec.commands.filter(command => command.chatIdArgument);
}

/** Prints the ids of the chats this machine synced (the upload manifests). */
const chatIdsCommand = `${program} completion --chat-ids 2>/dev/null`;

const profilesCommand = `${program} completion --profiles 2>/dev/null`;

/** Every flag whose value is a profile name, as a case pattern. */
function profileFlagPattern(spec: CompletionSpec): string {
	const names = [...new Set(spec.commands.flatMap(command => command.profileFlags ?? []))].sort();
	return names.length === 0 ? '--no-such-flag' : names.map(name => `--${kebab(name)}`).join('|');
}

/** The names of the commands whose argument is a profile (`config use`). */
function profileCommands(spec: CompletionSpec): string[] {
	return spec.commands.filter(command => command.profileArgument).map(command => command.words.join(' '));
}

function flagWords(flags: readonly string[]): string {
	return flags.map(flag => `--${kebab(flag)}`).join(' ');
}

/** First words: commands of one word, group names, and `help`. */
function firstWords(spec: CompletionSpec): string[] {
	return [...new Set([...spec.commands.map(command => command.words[0] ?? ''), 'help'])];
}

function subcommands(spec: CompletionSpec, group: string): string[] {
	return spec.commands.filter(command => command.words.length > 1 && command.words[0] === group).map(command => command.words[1] ?? '');
}

function groups(spec: CompletionSpec): string[] {
	return [...new Set(spec.commands.filter(command => command.words.length > 1).map(command => command.words[0] ?? ''))];
}

/** Every flag that takes a value in some command, as a case pattern (`--data-dir|--redis`). */
function valueFlagPattern(spec: CompletionSpec): string {
	const names = [...new Set(spec.commands.flatMap(command => command.valueFlags))].sort();
	return names.length === 0 ? '--no-such-flag' : names.map(name => `--${kebab(name)}`).join('|');
}

function quote(text: string): string {
	return `'${text.replaceAll('\'', '\'\\\'\'')}'`;
}

function bash(spec: CompletionSpec): string {
	const groupCases = groups(spec).map(group => `\t\t${group}) words_here=${quote(subcommands(spec, group).join(' '))} ;;`).join('\n');
	const flagCases = spec.commands.map(command => `\t\t${quote(command.words.join(' '))}) flags=${quote(flagWords(command.flags))} ;;`).join('\n');
	const idCases = eventIdCommands(spec).map(name => quote(name)).join('|') || '\'no such command\'';
	const chatCases = chatIdCommands(spec).map(command => `\t\t${quote(command.words.join(' '))})
			if [[ \${#positional[@]} -eq ${command.words.length} ]]; then
				COMPREPLY=($(compgen -W "$(${chatIdsCommand})" -- "$cur"))
				return
			fi ;;`).join('\n');
	return `# bash completion for ${program}; load with: source <(${program} completion bash)
_${program.replace('-', '_')}() {
	local cur="\${COMP_WORDS[COMP_CWORD]}"
	local -a positional=()
	local word skip=""
	for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
		if [[ -n $skip ]]; then
			skip=""
			continue
		fi
		case "$word" in
			${valueFlagPattern(spec)}) skip="$word" ;;
			-*) ;;
			*) positional+=("$word") ;;
		esac
	done
	# The word typed is a flag's value: event ids for an event-id flag, else the shell's default.
	if [[ -n $skip ]]; then
		case "$skip" in
			${eventIdFlagPattern(spec)}) COMPREPLY=($(compgen -W "$(${idsCommand('"${COMP_WORDS[@]:1}"')})" -- "$cur")) ;;
			${chatIdFlagPattern(spec)}) COMPREPLY=($(compgen -W "$(${chatIdsCommand})" -- "$cur")) ;;
			${profileFlagPattern(spec)}) COMPREPLY=($(compgen -W "$(${profilesCommand})" -- "$cur")) ;;
			*) COMPREPLY=() ;;
		esac
		return
	fi
	local first="\${positional[0]}" second="\${positional[1]}" words_here="" flags=""
	if [[ \${#positional[@]} -eq 0 ]]; then
		words_here=${quote(firstWords(spec).join(' '))}
		flags=${quote(flagWords(spec.topFlags))}
	elif [[ \${#positional[@]} -eq 1 ]]; then
		case "$first" in
${groupCases}
		esac
	fi
	local name="$first"
	[[ -n $second ]] && name="$first $second"
	case "$name" in
${flagCases}
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
		return
	fi
	case "$name" in
		${idCases})
			if [[ \${#positional[@]} -eq 2 ]]; then
				COMPREPLY=($(compgen -W "$(${idsCommand('"${COMP_WORDS[@]:1}"')})" -- "$cur"))
				return
			fi ;;
${chatCases}
		${profileCommands(spec).map(name => quote(name)).join('|') || '\'no such command\''})
			if [[ \${#positional[@]} -eq 2 ]]; then
				COMPREPLY=($(compgen -W "$(${profilesCommand})" -- "$cur"))
				return
			fi ;;
	esac
	COMPREPLY=($(compgen -W "$words_here" -- "$cur"))
}
complete -o default -F _${program.replace('-', '_')} ${program}
`;
}

function zsh(spec: CompletionSpec): string {
	const described = (words: string[], summaryOf: (word: string) => string) => words.map(word => quote(`${word}:${summaryOf(word).replaceAll(':', '\\:')}`)).join(' ');
	const summary = (words: readonly string[]) => spec.commands.find(command => command.words.join(' ') === words.join(' '))?.summary ?? '';
	const firstSummary = (word: string) => (groups(spec).includes(word) ? `${word} commands` : word === 'help' ? 'Help about a command' : summary([word]));
	const groupCases = groups(spec).map(group => `\t\t\t${group}) _describe command "(${described(subcommands(spec, group), sub => summary([group, sub]))})" ;;`).join('\n');
	const flagCases = spec.commands.map(command => `\t\t${quote(command.words.join(' '))}) flags=(${command.flags.map(flag => `--${kebab(flag)}`).join(' ')}) ;;`).join('\n');
	return `#compdef ${program}
# zsh completion for ${program}; install with: ${program} completion zsh > "\${fpath[1]}/_${program}"
_${program.replace('-', '_')}() {
	local -a positional flags
	local word skip=""
	for word in "\${(@)words[2,CURRENT-1]}"; do
		if [[ -n $skip ]]; then
			skip=""
			continue
		fi
		case $word in
			(${valueFlagPattern(spec)}) skip="$word" ;;
			(-*) ;;
			(*) positional+=("$word") ;;
		esac
	done
	# The word typed is a flag's value: event ids for an event-id flag, else files.
	if [[ -n $skip ]]; then
		case $skip in
			(${eventIdFlagPattern(spec)}) compadd -- \${(f)"$(${idsCommand('"${(@)words[2,-1]}"')})"} ;;
			(${chatIdFlagPattern(spec)}) compadd -- \${(f)"$(${chatIdsCommand})"} ;;
			(${profileFlagPattern(spec)}) compadd -- \${(f)"$(${profilesCommand})"} ;;
			(*) _files ;;
		esac
		return
	fi
	local name="\${positional[1]}"
	(( \${#positional} >= 2 )) && name="\${positional[1]} \${positional[2]}"
	case "$name" in
${flagCases}
		*) flags=(${spec.topFlags.map(flag => `--${kebab(flag)}`).join(' ')}) ;;
	esac
	if [[ $PREFIX == -* ]]; then
		compadd -- $flags
		return
	fi
	if (( \${#positional} == 0 )); then
		_describe command "(${described(firstWords(spec), firstSummary)})"
	elif [[ ${chatIdCommands(spec).map(command => `($name == "${command.words.join(' ')}" && \${#positional} -eq ${command.words.length})`).join(' || ') || 'no'} ]]; then
		compadd -- \${(f)"$(${chatIdsCommand})"}
	elif (( \${#positional} == 1 )); then
		case "\${positional[1]}" in
${groupCases}
			*) _files ;;
		esac
	elif [[ ${eventIdCommands(spec).map(name => `$name == "${name}"`).join(' || ') || 'no'} ]] && (( \${#positional} == 2 )); then
		compadd -- \${(f)"$(${idsCommand('"${(@)words[2,-1]}"')})"}
	elif [[ ${profileCommands(spec).map(name => `$name == "${name}"`).join(' || ') || 'no'} ]] && (( \${#positional} == 2 )); then
		compadd -- \${(f)"$(${profilesCommand})"}
	else
		_files
	fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_${program.replace('-', '_')} "$@"
else
	compdef _${program.replace('-', '_')} ${program}
fi
`;
}

function fish(spec: CompletionSpec): string {
	// No file names where a command or subcommand name or an event id is expected (-f); a command's
	// own arguments (upload's folder) and flag values (-r) complete files as usual.
	const lines = [`# fish completion for ${program}; install with: ${program} completion fish > ~/.config/fish/completions/${program}.fish`];
	const topLevel = firstWords(spec);
	const noCommand = `not __fish_seen_subcommand_from ${topLevel.join(' ')}`;
	for (const word of topLevel) {
		const one = spec.commands.find(command => command.words.length === 1 && command.words[0] === word);
		const description = one?.summary ?? (word === 'help' ? 'Help about a command' : `${word} commands`);
		lines.push(`complete -c ${program} -n ${quote(noCommand)} -f -a ${word} -d ${quote(description)}`);
	}

	for (const group of groups(spec)) {
		const subs = subcommands(spec, group);
		for (const sub of subs) {
			const description = spec.commands.find(command => command.words[0] === group && command.words[1] === sub)?.summary ?? '';
			lines.push(`complete -c ${program} -n ${quote(`__fish_seen_subcommand_from ${group}; and not __fish_seen_subcommand_from ${subs.join(' ')}`)} -f -a ${sub} -d ${quote(description)}`);
		}
	}

	for (const command of spec.commands) {
		const condition = command.words.map(word => `__fish_seen_subcommand_from ${word}`).join('; and ');
		const ids = quote(`(${idsCommand('(commandline -opc)[2..-1]')})`);
		const chatIds = quote(`(${chatIdsCommand})`);
		const profiles = quote(`(${profilesCommand})`);
		for (const flag of command.flags) {
			const value = command.eventIdFlags?.includes(flag) ? ` -x -a ${ids}` : command.chatIdFlags?.includes(flag) ? ` -x -a ${chatIds}` : command.profileFlags?.includes(flag) ? ` -x -a ${profiles}` : command.valueFlags.includes(flag) ? ' -r' : '';
			lines.push(`complete -c ${program} -n ${quote(condition)} -l ${kebab(flag)}${value}`);
		}

		if (command.eventIdArgument) {
			lines.push(`complete -c ${program} -n ${quote(condition)} -f -a ${ids}`);
		}

		if (command.chatIdArgument) {
			lines.push(`complete -c ${program} -n ${quote(condition)} -f -a ${chatIds}`);
		}

		if (command.profileArgument) {
			lines.push(`complete -c ${program} -n ${quote(condition)} -f -a ${profiles}`);
		}
	}

	const topProfiles = quote(`(${profilesCommand})`);
	for (const flag of spec.topFlags) {
		const value = spec.commands.some(command => command.profileFlags?.includes(flag)) ? ` -x -a ${topProfiles}` : '';
		lines.push(`complete -c ${program} -n ${quote(noCommand)} -f -l ${kebab(flag)}${value}`);
	}

	return `${lines.join('\n')}\n`;
}

/** The completion script for a shell. */
export function completionScript(shell: CompletionShell, spec: CompletionSpec): string {
	switch (shell) {
		case 'bash': {
			return bash(spec);
		}

		case 'zsh': {
			return zsh(spec);
		}

		case 'fish': {
			return fish(spec);
		}
	}
}
