/** `platform-tui events show <id>`: one journaled event's headers (signature masked), body and steps. */
import {eventDetail, formatEventDetail} from '../../ui/events/format.js';
import type {Command} from '../../cli/types.js';
import {openStore, parseEventId, stderrWarning, storedEvent, storeFlags, type EventIdOptions} from './shared.js';

export type ShowOptions = EventIdOptions;

const usage = 'platform-tui events show <id> [--json] [--data-dir DIR | --redis URL]';

const command: Command<ShowOptions> = {
	complete: 'event-id',
	usage,
	description: 'Show a stored event: its state, the delivery headers (signature masked), the body pretty-printed, and each recorded step with its time and result or error.',
	flags: {...storeFlags},
	examples: ['platform-tui events show evt_0123456789abcdef01234567', 'platform-tui events show evt_0123456789abcdef01234567 --json'],
	parse: parseEventId(usage),
	async run(options, deps) {
		const {backend, directory} = await openStore(options, 'read', deps.context.env, {warn: stderrWarning(deps.context.stderr)});
		try {
			const event = await storedEvent(backend, options.id, directory);
			deps.output.print({type: 'event', ...eventDetail(event)}, () => `${formatEventDetail(event).join('\n')}\n`);

			return 0;
		} finally {
			await backend.close();
		}
	},
};

export default command;
