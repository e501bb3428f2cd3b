/** `platform-tui version`: the same as `--version`, as gh and the Stripe CLI offer both. */
import {version} from '../version.js';
import {noArguments} from '../cli/define.js';
import type {Command} from '../cli/types.js';

const command: Command<Record<string, never>> = {
	usage: 'platform-tui version [--json]',
	description: 'Print the version of platform-tui (the same as --version)',
	flags: {},
	parse(input) {
		noArguments(input, command);
		return {};
	},
	run(_options, deps) {
		deps.output.print({type: 'version', version, node: process.version}, `${version}\n`);
		return Promise.resolve(0);
	},
};

export default command;
