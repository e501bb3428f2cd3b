/** `platform-tui events list`: the journaled events, newest first, as a table or NDJSON. */
import {eventStatuses, type EventStatus} from '../../receiver/backend.js';
import {tableWidth} from '../../format/table.js';
import {eventSummary, formatEventTable, formatListFooter} from '../../ui/events/format.js';
import type {Command} from '../types.js';
import {choiceFlag, durationFlag, intFlag, stringFlag} from '../validators.js';
import {openStore, parseStore, storeFlags, type StoreOptions} from './shared.js';

export type ListOptions = StoreOptions & {status?: EventStatus; type?: string; sinceMs?: number; limit: number; json: boolean};

const command: Command<ListOptions> = {
	name: ['events', 'list'],
	summary: 'List the events serve has journaled',
	usage: 'platform-tui events list [--status received|processing|answered|failed|ignored] [--type T] [--since 1h] [--limit N] [--json] [--data-dir DIR | --redis URL]',
	description: 'List the events serve stored, newest first: time, id, type, status, chat and processing time, with the journal\'s size on disk. Works while serve runs.',
	flags: {
		status: {type: 'string', description: `Only events in this state (${eventStatuses.join(', ')})`, placeholder: 'STATUS'},
		type: {type: 'string', description: 'Only events of this type: user-message, external-module-chosen, or a full event name', placeholder: 'TYPE'},
		since: {type: 'string', description: 'Only events received within this time (e.g. 30m, 1h, 7d)', placeholder: 'DURATION'},
		limit: {type: 'string', default: '50', description: 'At most this many events', placeholder: 'N'},
		...storeFlags,
	},
	examples: [
		'platform-tui events list --status failed --since 1h',
		'platform-tui events list --type external-module-chosen --json',
	],
	parse({flags, env}) {
		const status = choiceFlag(flags, 'status', eventStatuses);
		const type = stringFlag(flags, 'type');
		const sinceMs = flags.since === undefined ? undefined : durationFlag(flags, 'since', {min: 1000, max: 3650 * 24 * 3_600_000, fallbackMs: 0});
		return {
			...parseStore(flags, env),
			...(status ? {status} : {}),
			...(type ? {type} : {}),
			...(sinceMs === undefined ? {} : {sinceMs}),
			limit: intFlag(flags, 'limit', {min: 1, max: 100_000, fallback: 50}),
			json: flags.json === true,
		};
	},
	async run(options, deps) {
		const {backend, where} = await openStore(options, 'read', deps.context.env);
		try {
			const events = await backend.list({
				...(options.status ? {status: options.status} : {}),
				...(options.type ? {type: options.type} : {}),
				...(options.sinceMs === undefined ? {} : {sinceMs: deps.clock.now() - options.sinceMs}),
				limit: options.limit,
			});
			if (options.json) {
				for (const event of events) {
					deps.writeJson(eventSummary(event));
				}

				return 0;
			}

			const stats = await backend.stats();
			const {stdout, stderr} = deps.context;
			const width = tableWidth(stdout);
			if (events.length > 0) {
				stdout.write(`${formatEventTable(events, width).join('\n')}\n`);
			}

			// The footer is for a person: beside the table on a terminal, on stderr when piped.
			(width === undefined ? stderr : stdout).write(`${formatListFooter(events.length, stats, where)}\n`);
			return 0;
		} finally {
			await backend.close();
		}
	},
};

export default command;
