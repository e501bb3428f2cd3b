import {kebab} from '../kebab.js';
import {chatIdsCommand, firstWords, groups, idsCommand, profilesCommand, program, quote, subcommands, type CompletionSpec} from './spec.js';

/** The fish script: one `complete` line per command word, subcommand, flag and id argument. */
export function fishScript(spec: CompletionSpec): string {
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
