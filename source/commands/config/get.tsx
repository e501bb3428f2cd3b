import {resolveConfig} from '../../config/resolve.js';
import {isSettingName, mask, settingNames, settingSpecs} from '../../config/settings.js';
import {UserError} from '../../errors.js';
import type {CommandModule} from '../legacy-types.js';

const command: CommandModule = {
	usage: 'platform-tui config get <name> [--json]',
	description: 'Print one setting (secrets masked)',
	flags: {},
	examples: ['platform-tui config get baseUrl'],
	async run(context) {
		const [name] = context.argv;
		if (!name || context.argv.length > 1) {
			throw new UserError(`Usage: platform-tui config get <name>, where <name> is one of ${settingNames.join(', ')}`);
		}

		if (!isSettingName(name)) {
			throw new UserError(`Unknown setting "${name}"; the settings are ${settingNames.join(', ')}`);
		}

		const setting = resolveConfig({flags: context.flags, env: context.env})[name];
		const value = setting && settingSpecs[name].secret ? mask(setting.value) : setting?.value;
		if (context.json) {
			context.stdout.write(`${JSON.stringify({type: 'setting', name, value: value ?? null, source: setting?.source ?? 'not set'})}\n`);
			return setting ? 0 : 1;
		}

		if (!setting) {
			throw new UserError(`${name} is not set; set ${settingSpecs[name].env} or store it with \`platform-tui config set ${name} <value>\``);
		}

		context.stdout.write(`${value}\n`);
		return 0;
	},
};

export default command;
