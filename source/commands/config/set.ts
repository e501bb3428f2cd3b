import {text} from 'node:stream/consumers';
import {isSettingName, mask, settingNames, settingProblem, settingSpecs, type SettingName} from '../../config/settings.js';
import {UserError} from '../../errors.js';
import type {Command} from '../../cli/types.js';
import {booleanFlag, UsageError} from '../../cli/validators.js';
import {inProfile} from '../../cli/messages/profile.js';

/** The value is on the command line, or (for secrets) read from stdin when run. */
export type SetOptions = {name: SettingName; value: string | undefined};

const command: Command<SetOptions> = {
	usage: 'platform-tui config set <name> <value>   |   platform-tui config set endpointSecret --stdin',
	description: 'Store one setting in the config file (mode 0600)',
	flags: {
		stdin: {type: 'boolean', default: false, description: 'Read the value from standard input (required for endpointSecret)'},
	},
	examples: [
		'platform-tui config set baseUrl https://api.example.com/public',
		'printf %s "$SECRET" | platform-tui config set endpointSecret --stdin',
	],
	parse(input) {
		const [name, ...values] = input.argv;
		const fromStdin = booleanFlag(input.flags, 'stdin');
		if (!name || (!fromStdin && values.length !== 1) || (fromStdin && values.length > 0)) {
			throw new UsageError('argument-missing', `Usage: platform-tui config set <name> <value>, where <name> is one of ${settingNames.join(', ')}`);
		}

		if (!isSettingName(name)) {
			throw new UsageError('setting-unknown', `Unknown setting "${name}"; the settings are ${settingNames.join(', ')}`);
		}

		if (name === 'apiKey') {
			throw new UsageError('secret-on-command-line', 'The API key is not taken from the command line, where it would stay in shell history; store it with `platform-tui keys set` (it prompts, or reads stdin)');
		}

		if (settingSpecs[name].secret && !fromStdin) {
			throw new UsageError('secret-on-command-line', `${name} is a secret and is not taken from the command line; pipe it in with \`platform-tui config set ${name} --stdin\``);
		}

		if (fromStdin) {
			return {name, value: undefined};
		}

		const value = (values[0] ?? '').trim();
		if (value === '') {
			throw new UsageError('argument-missing', `No value given for ${name}`);
		}

		const expected = settingProblem(name, value);
		if (expected) {
			throw new UsageError('setting-invalid', `${name} must be ${expected}${settingSpecs[name].example ? ` such as ${settingSpecs[name].example}` : ''}; got ${JSON.stringify(value)}.`);
		}

		return {name, value};
	},
	async run({name, value: given}, deps) {
		const {context} = deps;
		let value = given;
		if (value === undefined) {
			if (context.stdin.isTTY) {
				throw new UsageError('stdin-not-piped', `--stdin reads the value from a pipe; try \`printf %s "$VALUE" | platform-tui config set ${name} --stdin\``);
			}

			value = (await text(context.stdin)).trim();
			if (value === '') {
				throw new UserError('stdin-empty', `No value given for ${name} on standard input`);
			}
		}

		const store = deps.store();
		await store.set(name, value);
		const shown = settingSpecs[name].secret ? mask(value) : value;
		deps.output.print({type: 'stored', name, value: shown, path: store.path}, `Stored ${name} = ${shown} in ${store.path}${inProfile(store.selection().name)}\n`);
		const envName = settingSpecs[name].env;
		if (!deps.output.json && context.env[envName]) {
			context.stderr.write(`Note: ${envName} is set in the environment and overrides the stored value.\n`);
		}

		return 0;
	},
};

export default command;
