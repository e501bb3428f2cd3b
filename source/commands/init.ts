import {connectionSettingNames, settingSpecs, type ConnectionSettings, type SettingName} from '../config/settings.js';
import {verifySettings} from '../config/verify.js';
import {UserError} from '../errors.js';
import {storeSettingsWithKey} from '../keys/set.js';
import {ProfileUnknownError} from '../config/errors.js';
import type {Deps} from '../cli/deps.js';
import type {InitOutcome, InitValues} from '../ui/init/init-form.js';
import {loadScreen} from '../ui/react-build.js';
import {describeError, joinText} from '../cli/error-message.js';
import type {Command} from '../cli/types.js';

/** `init` takes no options of its own; the shared setting flags pre-fill the answers. */
type InitOptions = Record<string, never>;

/** The values the form starts from: what is set now, or nothing for a profile init is about to create. */
function currentValues(deps: Deps): InitValues {
	let resolved;
	try {
		resolved = deps.resolved();
	} catch (error) {
		if (error instanceof ProfileUnknownError) {
			return {};
		}

		throw error;
	}

	const current: InitValues = {};
	for (const name of connectionSettingNames) {
		const setting = resolved[name];
		if (setting && setting.source !== 'default') {
			current[name] = setting.value;
		}
	}

	return current;
}

const command: Command<InitOptions> = {
	usage: 'platform-tui init',
	description: 'Set up the settings interactively, check them with one Get space call and store them',
	flags: {},
	examples: ['platform-tui init', 'platform-tui init --base-url http://127.0.0.1:4010'],
	parse: () => ({}),
	async run(_options, deps) {
		const {context} = deps;
		if (!context.interactive || !context.stdin.isTTY) {
			const names = connectionSettingNames.map(name => settingSpecs[name].env).join(', ');
			throw new UserError('not-interactive', `init asks questions and needs a terminal; in scripts set the environment variables instead (${names}), or store them with 'platform-tui config set <name> <value>' and 'platform-tui keys set'.`);
		}

		const current = currentValues(deps);

		let outcome: InitOutcome = {saved: false, cancelled: true};
		let summary: string[] = [];
		const check = async (values: InitValues) => {
			try {
				return await verifySettings(values as ConnectionSettings, {signal: context.signal});
			} catch (error) {
				// The form shows the same sentence and next step the CLI would print.
				throw new Error(joinText(describeError(error)), {cause: error});
			}
		};

		// A damaged or unreadable file, or a failed write, shows in the form.
		const save = async (values: InitValues) => {
			const toStore: Partial<Record<SettingName, string>> = {};
			for (const name of connectionSettingNames) {
				const value = values[name];
				if (value) {
					toStore[name] = value;
				}
			}

			// One write under the lock; a new API key records when it was set, as `keys set` does; a new profile is created.
			const store = deps.store();
			await storeSettingsWithKey(store, toStore, new Date(deps.clock.now()));
			return store.path;
		};

		// The form, Ink and React load once a terminal is known to be there.
		const [{InitForm}, {renderComponent, waitForApp}] = await loadScreen(async () => import('../ui/init/init-form.js'));
		const app = renderComponent(context, InitForm, {
			current,
			check,
			save,
			onDone(result: InitOutcome, lines: string[]) {
				outcome = result;
				summary = lines;
			},
		}, {hideTyping: true});
		await waitForApp(app, context.signal);
		// Printed after the form is gone, as ordinary output: the terminal wraps it, and the last line
		// ends with a newline however tall the form's last frame was. The result goes to stdout; a
		// cancel or a refusal to save is a diagnostic.
		if (summary.length > 0) {
			(outcome.saved ? context.stdout : context.stderr).write(`${summary.join('\n')}\n`);
		}

		if (outcome.cancelled) {
			return context.signal.reason === 'SIGTERM' ? 143 : 130;
		}

		return outcome.saved ? 0 : 1;
	},
};

export default command;
