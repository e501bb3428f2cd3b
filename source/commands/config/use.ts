import {profileEnv} from '../../config/profiles.js';
import type {Command} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';

export type UseOptions = {name: string};

const usage = 'platform-tui config use <profile>';

const command: Command<UseOptions> = {
	usage,
	description: `Make a profile the one used when neither --profile nor ${profileEnv} names one (stored in the config file, under its lock). A profile the file does not hold is refused and nothing changes.`,
	flags: {},
	complete: 'profile',
	examples: ['platform-tui config use staging', 'platform-tui config use default'],
	parse(input) {
		const [name, ...extra] = input.argv;
		const hint = `${usage} (\`platform-tui config profiles\` lists them)`;
		if (name === undefined) {
			throw new UsageError('argument-missing', `Name the profile: ${hint}`);
		}

		if (extra.length > 0) {
			throw new UsageError('too-many-arguments', `Name one profile only: ${hint}`);
		}

		return {name};
	},
	async run({name}, deps) {
		const {context} = deps;
		const store = deps.store();
		await store.use(name);
		deps.output.print({type: 'stored', name: 'activeProfile', value: name, path: store.path}, `Using profile ${name} from now on (stored in ${store.path})\n`);

		const fromEnv = context.env[profileEnv]?.trim();
		if (fromEnv && fromEnv !== name) {
			context.stderr.write(`Note: ${profileEnv}=${fromEnv} is set in the environment and overrides this choice.\n`);
		}

		return 0;
	},
};

export default command;
