import type {Command} from '../../cli/types.js';
import {noArguments} from '../../cli/define.js';

const command: Command<Record<string, never>> = {
	usage: 'platform-tui config path',
	description: 'Print where the settings file is (PLATFORM_TUI_CONFIG_DIR moves it). The file is not read, so this works even when it is damaged.',
	flags: {},
	parse(input) {
		noArguments(input, command);

		return {};
	},
	run(_options, deps) {
		const {path} = deps.store();
		deps.output.print({type: 'path', path}, `${path}\n`);
		return Promise.resolve(0);
	},
};

export default command;
