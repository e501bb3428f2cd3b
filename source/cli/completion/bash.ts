import {chatIdCommands, chatIdFlagPattern, chatIdsCommand, eventIdCommands, eventIdFlagPattern, firstWords, flagWords, groups, idsCommand, profileCommands, profileFlagPattern, profilesCommand, program, quote, subcommands, valueFlagPattern, type CompletionSpec} from './spec.js';

/** The bash script: `complete -F` with a function that reads the words typed so far. */
export function bashScript(spec: CompletionSpec): string {
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
