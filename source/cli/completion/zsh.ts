import {kebab} from '../kebab.js';
import {chatIdCommands, chatIdFlagPattern, chatIdsCommand, eventIdCommands, eventIdFlagPattern, firstWords, groups, idsCommand, profileCommands, profileFlagPattern, profilesCommand, program, quote, subcommands, valueFlagPattern, type CompletionSpec} from './spec.js';

/** The zsh script: a `#compdef` function, autoloaded from fpath or registered with compdef. */
export function zshScript(spec: CompletionSpec): string {
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
