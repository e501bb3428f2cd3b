/** `platform-tui events replay <id>`: processes a stored chosen-module event again, with new logs and answer. */
import {defaultModel} from '../../config/settings.js';
import {formatMs} from '../../format/duration.js';
import {eventTypes} from '../../platform/types.js';
import {storedEventJob} from '../../receiver/answer-job.js';
import {journalError} from '../../receiver/journal/errors.js';
import {platformPort} from '../../receiver/platform-port.js';
import type {Command} from '../types.js';
import {openStore, parseEventId, storedEvent, storeFlags, unknownEvent, type EventIdOptions} from './shared.js';

export type ReplayOptions = EventIdOptions;

const usage = 'platform-tui events replay <id> [--json] [--data-dir DIR | --redis URL]';

const command: Command<ReplayOptions> = {
	name: ['events', 'replay'],
	summary: 'Process a journaled event again',
	usage,
	description: 'Process a stored external-module.chosen event again (after an outage or a fix): new message logs and the answer are written. Works whether or not serve runs; an event another process is working on is refused.',
	flags: {...storeFlags},
	examples: ['platform-tui events replay evt_0123456789abcdef01234567'],
	parse: parseEventId(usage),
	async run(options, deps) {
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId'], 'events replay');
		const {backend, directory} = await openStore(options, 'replay', deps.context.env);
		const client = deps.client(settings);
		try {
			const stored = await storedEvent(backend, options.id, directory);
			if (stored.event !== eventTypes.externalModuleChosen) {
				throw journalError('journal-event-not-replayable', {id: options.id, event: stored.event}, `event ${options.id} is not a chosen-module event`);
			}

			const result = await backend.replay(options.id, storedEventJob(platformPort(client), settings.model ?? defaultModel));
			switch (result.outcome) {
				case 'unknown': {
					throw unknownEvent(options.id, result.near, directory);
				}

				case 'busy': {
					throw journalError('journal-event-busy', {id: options.id, holder: result.holder}, `event ${options.id} is held by ${result.holder}`);
				}

				case 'queued': {
					if (options.json) {
						deps.writeJson({type: 'replay', id: options.id, status: 'queued'});
					} else {
						deps.context.stdout.write(`Queued ${options.id} again; a serve replica will process it.\n`);
					}

					return 0;
				}

				default: {
					break;
				}
			}

			const after = await backend.get(options.id);
			const took = after?.durationMs === undefined ? '' : ` in ${formatMs(after.durationMs)}`;
			if (options.json) {
				deps.writeJson({type: 'replay', id: options.id, status: result.result.status, ...(after?.durationMs === undefined ? {} : {durationMs: after.durationMs}), ...(result.result.error ? {error: result.result.error} : {})});
			} else if (result.result.status === 'answered') {
				deps.context.stdout.write(`Replayed ${options.id}: answered${took}; the answer is written in chat ${stored.chatId ?? '(unknown)'}.\n`);
			} else {
				deps.context.stderr.write(`Replayed ${options.id}: failed${took}: ${result.result.error ?? 'no reason given'}. See \`platform-tui events show ${options.id}\` for its steps.\n`);
			}

			return result.result.status === 'answered' ? 0 : 1;
		} finally {
			await client.close();
			await backend.close();
		}
	},
};

export default command;
