/** `platform-tui events show <id>`: one journaled event's headers (signature masked), body and steps. */
import {journalError} from '../../receiver/journal/errors.js';
import {eventDetail, formatEventDetail} from '../../ui/events/format.js';
import type {Command} from '../types.js';
import {eventIdArgument, nearEventIds, openStore, parseStore, storeFlags, type StoreOptions} from './shared.js';

export type ShowOptions = StoreOptions & {id: string; json: boolean};

const usage = 'platform-tui events show <id> [--json] [--data-dir DIR | --redis URL]';

const command: Command<ShowOptions> = {
	name: ['events', 'show'],
	summary: 'Show one journaled event: headers, body and steps',
	usage,
	description: 'Show a stored event: its state, the delivery headers (signature masked), the body pretty-printed, and each recorded step with its time and result or error.',
	flags: {...storeFlags},
	examples: ['platform-tui events show evt_0123456789abcdef01234567', 'platform-tui events show evt_0123456789abcdef01234567 --json'],
	parse({argv, flags, env}) {
		return {...parseStore(flags, env), id: eventIdArgument(argv, usage), json: flags.json === true};
	},
	async run(options, deps) {
		const {backend, directory} = await openStore(options, 'read', deps.context.env);
		try {
			const event = await backend.get(options.id);
			if (!event) {
				const near = await nearEventIds(backend, options.id);
				throw journalError('journal-event-unknown', {id: options.id, near, directory}, `no event ${options.id} in ${directory}`);
			}

			if (options.json) {
				deps.writeJson(eventDetail(event));
			} else {
				deps.context.stdout.write(`${formatEventDetail(event).join('\n')}\n`);
			}

			return 0;
		} finally {
			await backend.close();
		}
	},
};

export default command;
