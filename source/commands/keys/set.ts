import {text} from 'node:stream/consumers';
import {ConfigDamagedError} from '../../config/errors.js';
import {CancelledError, UserError} from '../../errors.js';
import {maxKeyLength} from '../../keys/current.js';
import {storeApiKey, type StoredKey} from '../../keys/set.js';
import type {KeyPromptResult} from '../../ui/keys/KeyPrompt.js';
import type {Deps} from '../../cli/deps.js';
import type {Command, CommandContext} from '../../cli/types.js';
import {booleanFlag, UsageError} from '../../cli/validators.js';
import {inProfile} from '../../cli/messages/profile.js';
import {loadScreen} from '../../ui/react-build.js';

const pipeHint = 'printf %s "$KEY" | platform-tui keys set';

export type SetOptions = {force: boolean};

/** Reads the key from a pipe: the whole input, trimmed; one key, nothing else. */
async function readKeyFromStdin(context: CommandContext): Promise<string> {
	const input = await text(context.stdin);
	if (input.length > maxKeyLength * 2) {
		throw new UserError('key-invalid', `Standard input holds ${input.length} characters, far more than an API key; pipe only the key: ${pipeHint}`);
	}

	const key = input.trim();
	if (key === '') {
		throw new UserError('stdin-empty', `No API key on standard input; pipe it in: ${pipeHint}`);
	}

	return key;
}

/** Shows the masked prompt and resolves with what the user did. */
async function promptForKey(context: CommandContext): Promise<string> {
	let result: KeyPromptResult | undefined;
	// Loaded only for the prompt: a key piped in on stdin needs neither Ink nor React.
	const [{KeyPrompt}, {renderComponent, waitForApp}] = await loadScreen(async () => import('../../ui/keys/KeyPrompt.js'));
	const instance = renderComponent(context, KeyPrompt, {label: 'API key', onDone(value: KeyPromptResult) {
		result = value;
	}}, {hideTyping: true});
	await waitForApp(instance, context.signal, () => {
		result ??= {kind: 'interrupted'};
	});

	if (!result || result.kind === 'interrupted') {
		throw new CancelledError();
	}

	if (result.kind === 'cancelled') {
		throw new UserError('key-not-entered', 'No key entered; the stored key is unchanged');
	}

	return result.key;
}

function report(deps: Deps, stored: StoredKey): void {
	const {context} = deps;
	deps.output.print(
		{type: 'stored', key: stored.masked, path: stored.path, changed: stored.changed, envOverride: stored.envOverride, ...(stored.backup ? {backup: stored.backup} : {})},
		`${stored.changed ? 'Stored' : 'Unchanged:'} API key ${stored.masked} in ${stored.path}${inProfile(deps.store().selection().name)} (mode 0600)\n`,
	);

	if (stored.backup) {
		context.stderr.write(`The damaged config file was kept as ${stored.backup}; the new file holds only the API key, so copy any other settings you need from the copy (or set them again with \`platform-tui init\`).\n`);
	}

	if (stored.envOverride) {
		context.stderr.write('Warning: PLATFORM_API_KEY is set in the environment and overrides the stored key; unset it or update it to use this key.\n');
	}
}

/** The file's damage, when it is damaged (it then needs --force); other read problems are thrown. */
function damage(deps: Deps): ConfigDamagedError | undefined {
	try {
		// The whole file: a profile not created yet is no damage (storing its key creates it).
		deps.store().file();
		return undefined;
	} catch (error) {
		if (error instanceof ConfigDamagedError) {
			return error;
		}

		throw error;
	}
}

const command: Command<SetOptions> = {
	usage: `platform-tui keys set [--force]   (prompts on a terminal)   |   ${pipeHint}`,
	description: 'Store the API key in the config file (mode 0600): a masked prompt on a terminal, otherwise read from standard input. When the config file is damaged, --force starts a fresh one and keeps the damaged file as a .bak copy beside it.',
	flags: {
		force: {type: 'boolean', default: false, description: 'If the config file is damaged, keep it as a .bak copy and start a fresh one'},
	},
	examples: ['platform-tui keys set', pipeHint, 'platform-tui keys set < key.txt', 'platform-tui keys set --force < key.txt'],
	parse(input) {
		if (input.argv.length > 0) {
			// Never echo the argument: it is probably the key.
			throw new UsageError('secret-on-command-line', `The API key is not taken from the command line, where it would stay in shell history and show in the process list; run \`platform-tui keys set\` to be prompted, or pipe it in: ${pipeHint}`);
		}

		return {force: booleanFlag(input.flags, 'force')};
	},
	async run(options, deps) {
		const {context} = deps;
		// Check the file before asking for the key: a damaged file is refused unless --force. Whether
		// the key changes is decided by storeApiKey on one read under the lock, not on this one.
		const problem = damage(deps);
		if (problem && !options.force) {
			throw problem;
		}

		let key: string;
		if (context.stdin.isTTY) {
			if (!context.interactive) {
				throw new UsageError('not-interactive', `keys set would prompt for the key, but this is not an interactive terminal (or --json was given); pipe the key in instead: ${pipeHint}`);
			}

			key = await promptForKey(context);
		} else {
			key = await readKeyFromStdin(context);
		}

		report(deps, await storeApiKey({key, store: deps.store(), env: context.env, fresh: problem !== undefined, now: () => new Date(deps.clock.now())}));
		return 0;
	},
};

export default command;
