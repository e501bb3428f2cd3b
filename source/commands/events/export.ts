/** `platform-tui events export <id>`: a stored event's body, exactly as received, to stdout or a file (a fixture for `trigger --body`). */
import {resolve} from 'node:path';
import {UserError} from '../../errors.js';
import {errorCode, errorMessage} from '../../format/value.js';
import {writePrivateFile} from '../../private-files.js';
import {bodyBytes} from '../../receiver/intake/body.js';
import {readFlags} from '../../cli/flag-values.js';
import {UsageError} from '../../cli/validators.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {eventIdArgument, openStore, parseStore, stderrWarning, storedEvent, storeFlags, type StoreOptions} from './shared.js';

export type ExportOptions = StoreOptions & {id: string; output?: string; force: boolean};

const newline = Buffer.from('\n');

const usage = 'platform-tui events export <id> [--output FILE [--force]] [--data-dir DIR | --redis URL]';

/** Each flag once, with its default and range. */
const exportFlags = {
	output: {type: 'string', shortFlag: 'o', description: 'Write the body to this new file instead of stdout (byte for byte, mode 0600); an existing file is refused unless --force', placeholder: 'FILE'},
	force: {type: 'boolean', default: false, description: 'With --output: replace the file when it exists'},
	...storeFlags,
} satisfies Record<string, FlagSpec>;

const command: Command<ExportOptions> = {
	complete: 'event-id',
	usage,
	description: 'Print the body of a stored event exactly as it was received, or write it to a new file with --output (mode 0600; --force replaces an existing one), to send again with `platform-tui trigger --body FILE`. Works while serve runs.',
	flags: exportFlags,
	examples: [
		'platform-tui events export evt_0123456789abcdef01234567 > fixture.json',
		'platform-tui events export evt_0123456789abcdef01234567 --output fixture.json',
	],
	parse({argv, flags, env}) {
		const {output, force} = readFlags({output: exportFlags.output, force: exportFlags.force}, {flags, env});
		if (force && !output) {
			throw new UsageError('flags-conflict', '--force replaces the file --output names, so it needs --output FILE (without it the body goes to stdout).');
		}

		// The records of --json go to stdout: the body would be mixed into them.
		if (flags.json === true && !output) {
			throw new UsageError('flags-conflict', '--json prints records on stdout, where the body would go, so it needs --output FILE; without --json the body goes to stdout as it was received.');
		}

		return {...parseStore(flags, env), id: eventIdArgument(argv, usage), force, ...(output ? {output: resolve(output)} : {})};
	},
	async run(options, deps) {
		const {backend, directory} = await openStore(options, 'read', deps.context.env, {warn: stderrWarning(deps.context.stderr)});
		let body: Buffer;
		let id: string;
		try {
			// The exact bytes received (a body that is not UTF-8 included), so it still matches its signature.
			const event = await storedEvent(backend, options.id, directory);
			id = event.id;
			body = bodyBytes(event);
		} finally {
			await backend.close();
		}

		if (!options.output) {
			// The body as received; a line end only when it has none, so a terminal prompt starts on its own line.
			deps.context.stdout.write(body.at(-1) === 0x0A ? body : Buffer.concat([body, newline]));
			return 0;
		}

		try {
			// A new file unless --force (as `gh` and `rclone` do): an existing one is never replaced unasked.
			await writePrivateFile(options.output, body, options.force ? 'w' : 'wx');
		} catch (error) {
			if (errorCode(error) === 'EEXIST') {
				throw new UserError('export-file-exists', `${options.output} already exists, so the body of ${id} was not written; choose another --output, or pass --force to replace it`, {cause: error});
			}

			throw new UserError('export-write-failed', `Could not write ${options.output}: ${errorMessage(error)}; choose another --output`, {cause: error});
		}

		const bytes = body.length;
		// The file is the result; without --json the confirmation is a diagnostic, so stdout stays empty.
		deps.output.print({type: 'exported', id, path: options.output, bytes});
		if (!deps.output.json) {
			deps.context.stderr.write(`Wrote the body of ${id} (${bytes} bytes) to ${options.output}\n`);
		}

		return 0;
	},
};

export default command;
