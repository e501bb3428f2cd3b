import {resolveConfig} from '../config/resolve.js';
import {settingNames, settingSpecs, type SettingName} from '../config/settings.js';
import {ConfigStore} from '../config/store.js';
import {verifySettings, type ConnectionSettings} from '../config/verify.js';
import {UserError} from '../errors.js';
import {InitForm, type InitOutcome, type InitValues} from '../ui/init/init-form.js';
import {renderApp, waitForApp} from '../ui/render.js';
import type {CommandModule} from './legacy-types.js';

const command: CommandModule = {
	usage: 'platform-tui init',
	description: 'Set up the settings interactively, check them with one Get space call and store them',
	flags: {},
	examples: ['platform-tui init'],
	async run(context) {
		if (!context.interactive || !context.stdin.isTTY) {
			const names = settingNames.map(name => settingSpecs[name].env).join(', ');
			throw new UserError(`init asks questions and needs a terminal; in scripts set the environment variables instead (${names}), or store them with \`platform-tui config set <name> <value>\` and \`platform-tui keys set\``);
		}

		const store = new ConfigStore(context.env);
		const resolved = resolveConfig({flags: context.flags, env: context.env, store});
		const current: InitValues = {};
		for (const name of settingNames) {
			const setting = resolved[name];
			if (setting && setting.source !== 'default') {
				current[name] = setting.value;
			}
		}

		let outcome: InitOutcome = {saved: false, cancelled: true};
		const app = renderApp(context, (
			<InitForm
				current={current}
				check={async values => verifySettings(values as ConnectionSettings, {signal: context.signal})}
				save={values => {
					const toStore: Partial<Record<SettingName, string>> = {};
					for (const name of settingNames) {
						const value = values[name];
						if (value) {
							toStore[name] = value;
						}
					}

					store.setMany(toStore);
					return store.path;
				}}
				onDone={result => {
					outcome = result;
				}}
			/>
		));
		await waitForApp(app, context.signal);
		if (outcome.cancelled) {
			return 130;
		}

		return outcome.saved ? 0 : 1;
	},
};

export default command;
