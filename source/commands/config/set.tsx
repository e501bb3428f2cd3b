import {text} from 'node:stream/consumers';
import {isSettingName, mask, settingNames, settingSpecs} from '../../config/settings.js';
import {ConfigStore} from '../../config/store.js';
import {UserError} from '../../errors.js';
import type {CommandModule} from '../legacy-types.js';

function validate(name: string, value: string): void {
	if (name === 'baseUrl') {
		let url: URL;
		try {
			url = new URL(value);
		} catch {
			throw new UserError(`baseUrl must be an http(s) address such as https://api.example.com/public; got "${value}"`);
		}

		if (url.protocol !== 'http:' && url.protocol !== 'https:') {
			throw new UserError(`baseUrl must start with http:// or https://; got "${value}"`);
		}
	}
}

const command: CommandModule = {
	usage: 'platform-tui config set <name> <value>   |   platform-tui config set endpointSecret --stdin',
	description: 'Store one setting in the config file (mode 0600)',
	flags: {
		stdin: {type: 'boolean', default: false, description: 'Read the value from standard input (required for endpointSecret)'},
	},
	examples: [
		'platform-tui config set baseUrl https://api.example.com/public',
		'printf %s "$SECRET" | platform-tui config set endpointSecret --stdin',
	],
	async run(context) {
		const [name, ...values] = context.argv;
		const fromStdin = context.flags.stdin === true;
		if (!name || (!fromStdin && values.length !== 1) || (fromStdin && values.length > 0)) {
			throw new UserError(`Usage: platform-tui config set <name> <value>, where <name> is one of ${settingNames.join(', ')}`);
		}

		if (!isSettingName(name)) {
			throw new UserError(`Unknown setting "${name}"; the settings are ${settingNames.join(', ')}`);
		}

		if (name === 'apiKey') {
			throw new UserError('The API key is not taken from the command line, where it would stay in shell history; store it with `platform-tui keys set` (it prompts, or reads stdin)');
		}

		if (settingSpecs[name].secret && !fromStdin) {
			throw new UserError(`${name} is a secret and is not taken from the command line; pipe it in with \`platform-tui config set ${name} --stdin\``);
		}

		let value: string;
		if (fromStdin) {
			if (context.stdin.isTTY) {
				throw new UserError(`--stdin reads the value from a pipe; try \`printf %s "$VALUE" | platform-tui config set ${name} --stdin\``);
			}

			value = (await text(context.stdin)).trim();
		} else {
			value = (values[0] ?? '').trim();
		}

		if (value === '') {
			throw new UserError(`No value given for ${name}`);
		}

		validate(name, value);
		const store = new ConfigStore(context.env);
		store.set(name, value);
		const shown = settingSpecs[name].secret ? mask(value) : value;
		if (context.json) {
			context.stdout.write(`${JSON.stringify({type: 'stored', name, value: shown, path: store.path})}\n`);
		} else {
			context.stdout.write(`Stored ${name} = ${shown} in ${store.path}\n`);
			const envName = settingSpecs[name].env;
			if (context.env[envName]) {
				context.stderr.write(`Note: ${envName} is set in the environment and overrides the stored value.\n`);
			}
		}

		return 0;
	},
};

export default command;
