import {isSettingName, mask, settingNames, settingSpecs, type SettingName} from '../../config/settings.js';
import {UserError} from '../../errors.js';
import type {Command} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';
import {howToStore} from '../../cli/messages/config.js';

export type GetOptions = {name: SettingName};

const command: Command<GetOptions> = {
	usage: 'platform-tui config get <name> [--json]',
	description: 'Print one setting (secrets masked)',
	flags: {},
	examples: ['platform-tui config get baseUrl'],
	parse(input) {
		const [name] = input.argv;
		if (!name || input.argv.length > 1) {
			throw new UsageError('argument-missing', `Usage: platform-tui config get <name>, where <name> is one of ${settingNames.join(', ')}`);
		}

		if (!isSettingName(name)) {
			throw new UsageError('setting-unknown', `Unknown setting "${name}"; the settings are ${settingNames.join(', ')}`);
		}

		return {name};
	},
	run({name}, deps) {
		const setting = deps.resolved()[name];
		const value = setting && settingSpecs[name].secret ? mask(setting.value) : setting?.value;
		if (deps.output.json) {
			deps.output.print({type: 'setting', name, value: value ?? null, source: setting?.source ?? 'not set'});
			return Promise.resolve(setting ? 0 : 1);
		}

		if (!setting) {
			throw new UserError('setting-not-set', `${name} is not set; set ${settingSpecs[name].env} or store it with \`${howToStore(name)}\``);
		}

		deps.context.stdout.write(`${value}\n`);
		return Promise.resolve(0);
	},
};

export default command;
