import {text} from 'node:stream/consumers';
import {ConfigStore} from '../../config/store.js';
import {CancelledError, UserError} from '../../errors.js';
import {maxKeyLength} from '../../keys/current.js';
import {storeApiKey, type StoredKey} from '../../keys/set.js';
import {KeyPrompt, type KeyPromptResult} from '../../ui/keys/KeyPrompt.js';
import {renderApp, waitForApp} from '../../ui/render.js';
import {writeJson} from '../shared.js';
import type {CommandContext, CommandModule} from '../legacy-types.js';

const pipeHint = 'printf %s "$KEY" | platform-tui keys set';

/** Reads the key from a pipe: the whole input, trimmed; one key, nothing else. */
async function readKeyFromStdin(context: CommandContext): Promise<string> {
	const input = await text(context.stdin);
	if (input.length > maxKeyLength * 2) {
		throw new UserError(`Standard input holds ${input.length} characters, far more than an API key; pipe only the key: ${pipeHint}`);
	}

	const key = input.trim();
	if (key === '') {
		throw new UserError(`No API key on standard input; pipe it in: ${pipeHint}`);
	}

	return key;
}

/** Shows the masked prompt and resolves with what the user did. */
async function promptForKey(context: CommandContext): Promise<string> {
	let result: KeyPromptResult | undefined;
	const instance = renderApp(context, <KeyPrompt label='API key' onDone={value => {
		result = value;
	}}/>);
	await waitForApp(instance, context.signal, () => {
		result ??= {kind: 'interrupted'};
	});

	if (!result || result.kind === 'interrupted') {
		throw new CancelledError();
	}

	if (result.kind === 'cancelled') {
		throw new UserError('No key entered; the stored key is unchanged');
	}

	return result.key;
}

function report(context: CommandContext, stored: StoredKey): void {
	if (context.json) {
		writeJson(context, {type: 'stored', key: stored.masked, path: stored.path, changed: stored.changed, envOverride: stored.envOverride});
	} else {
		context.stdout.write(`${stored.changed ? 'Stored' : 'Unchanged:'} API key ${stored.masked} in ${stored.path} (mode 0600)\n`);
	}

	if (stored.envOverride) {
		context.stderr.write('Warning: PLATFORM_API_KEY is set in the environment and overrides the stored key; unset it or update it to use this key.\n');
	}
}

const command: CommandModule = {
	usage: `platform-tui keys set   (prompts on a terminal)   |   ${pipeHint}`,
	description: 'Store the API key in the config file (mode 0600): a masked prompt on a terminal, otherwise read from standard input',
	flags: {},
	examples: ['platform-tui keys set', pipeHint, 'platform-tui keys set < key.txt'],
	async run(context) {
		if (context.argv.length > 0) {
			// Never echo the argument: it is probably the key.
			throw new UserError(`The API key is not taken from the command line, where it would stay in shell history and show in the process list; run \`platform-tui keys set\` to be prompted, or pipe it in: ${pipeHint}`);
		}

		let key: string;
		if (context.stdin.isTTY) {
			if (!context.interactive) {
				throw new UserError(`keys set would prompt for the key, but this is not an interactive terminal (or --json was given); pipe the key in instead: ${pipeHint}`);
			}

			key = await promptForKey(context);
		} else {
			key = await readKeyFromStdin(context);
		}

		const store = new ConfigStore(context.env);
		report(context, storeApiKey({key, store, env: context.env}));
		return 0;
	},
};

export default command;
