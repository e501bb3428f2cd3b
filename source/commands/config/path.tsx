import {ConfigStore} from '../../config/store.js';
import type {CommandModule} from '../legacy-types.js';

const command: CommandModule = {
	usage: 'platform-tui config path',
	description: 'Print where the settings file is (PLATFORM_TUI_CONFIG_DIR moves it)',
	flags: {},
	async run(context) {
		const {path} = new ConfigStore(context.env);
		context.stdout.write(context.json ? `${JSON.stringify({type: 'path', path})}\n` : `${path}\n`);
		return 0;
	},
};

export default command;
