/** `platform-tui events export <id>`: a stored event's body, exactly as received, to stdout or a file (a fixture for `trigger --body`). */
import {writeFile} from 'node:fs/promises';
import {resolve} from 'node:path';
import {UserError} from '../../errors.js';
import {errorMessage} from '../../format/value.js';
import {bodyBytes} from '../../receiver/body.js';
import {readFlags} from '../../cli/flag-values.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {eventIdArgument, openStore, parseStore, storedEvent, storeFlags, type StoreOptions} from './shared.js';
import {commandInfo} from '../../cli/declaration.js';
import declaration from './export.command.js';

export type ExportOptions = StoreOptions & {id: string; output?: string; json: boolean};

const newline = Buffer.from('\n');

const usage = 'platform-tui events export <id> [--output FILE] [--data-dir DIR | --redis URL]';

/** Each flag once, with its default and range. */
const exportFlags = {
	output: {type: 'string', shortFlag: 'o', description: 'Write the body to this file instead of stdout (byte for byte)', placeholder: 'FILE'},
	...storeFlags,
} satisfies Record<string, FlagSpec>;

const command: Command<ExportOptions> = {
	...commandInfo(declaration),
	complete: 'event-id',
	usage,
	description: 'Print the body of a stored event exactly as it was received, or write it to a file with --output (mode 0600), to send again with `platform-tui trigger --body FILE`. Works while serve runs.',
	flags: exportFlags,
	examples: [
		'platform-tui events export evt_0123456789abcdef01234567 > fixture.json',
		'platform-tui events export evt_0123456789abcdef01234567 --output fixture.json',
	],
	parse({argv, flags, env}) {
		const {output} = readFlags({output: exportFlags.output}, {flags, env});
		return {...parseStore(flags, env), id: eventIdArgument(argv, usage), json: flags.json === true, ...(output ? {output: resolve(output)} : {})};
	},
	async run(options, deps) {
		const {backend, directory} = await openStore(options, 'read', deps.context.env);
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
			await writeFile(options.output, body, {mode: 0o600});
		} catch (error) {
			throw new UserError('export-write-failed', `Could not write ${options.output}: ${errorMessage(error)}; choose another --output`, {cause: error});
		}

		const bytes = body.length;
		if (options.json) {
			deps.writeJson({type: 'exported', id, path: options.output, bytes});
		} else {
			// The file is the result; the confirmation is a diagnostic, so stdout stays empty.
			deps.context.stderr.write(`Wrote the body of ${id} (${bytes} bytes) to ${options.output}\n`);
		}

		return 0;
	},
};

export default command;
