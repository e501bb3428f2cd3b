import {resolveConfig} from '../../config/resolve.js';
import {mask, settingNames, settingSpecs} from '../../config/settings.js';
import {ConfigStore} from '../../config/store.js';
import type {CommandModule} from '../legacy-types.js';

const command: CommandModule = {
	usage: 'platform-tui config list [--json]',
	description: 'List every setting, its value (secrets masked) and where it comes from',
	flags: {},
	examples: ['platform-tui config list', 'platform-tui config list --json'],
	async run(context) {
		const store = new ConfigStore(context.env);
		const resolved = resolveConfig({flags: context.flags, env: context.env, store});
		const rows = settingNames.map(name => {
			const setting = resolved[name];
			const spec = settingSpecs[name];
			const value = setting ? (spec.secret ? mask(setting.value) : setting.value) : undefined;
			return {name, value, source: setting?.source ?? 'not set', env: spec.env};
		});
		if (context.json) {
			for (const row of rows) {
				context.stdout.write(`${JSON.stringify({type: 'setting', ...row, value: row.value ?? null})}\n`);
			}

			return 0;
		}

		const width = Math.max(...rows.map(row => (row.value ?? '-').length), 5);
		context.stdout.write(`${'SETTING'.padEnd(16)}${'VALUE'.padEnd(width + 2)}${'SOURCE'.padEnd(10)}ENV\n`);
		for (const row of rows) {
			context.stdout.write(`${row.name.padEnd(16)}${(row.value ?? '-').padEnd(width + 2)}${row.source.padEnd(10)}${row.env}\n`);
		}

		context.stdout.write(`\nStored in ${store.path}\n`);
		return 0;
	},
};

export default command;
