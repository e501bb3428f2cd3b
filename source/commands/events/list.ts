/** `platform-tui events list`: the journaled events, newest first, as a table or NDJSON. */
import {tableWidth} from '../../format/table.js';
import {eventSummary, formatEventTable, formatListFooter, formatUnreadable} from '../../ui/events/format.js';
import {readFlags} from '../../cli/flag-values.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {filterFlags, listFilter, parseFilter, type FilterOptions} from './filter-flags.js';
import {openStore, parseStore, stderrWarning, storeFlags, type StoreOptions} from './shared.js';

export type ListOptions = StoreOptions & FilterOptions & {limit: number};

/** Each flag once, with its default and range. */
const listFlags = {
	...filterFlags,
	limit: {type: 'string', default: 50, range: {kind: 'int', min: 1, max: 100_000}, description: 'At most this many events', placeholder: 'N'},
	...storeFlags,
} satisfies Record<string, FlagSpec>;

const command: Command<ListOptions> = {
	// The statuses are the ones --status accepts, from its declaration.
	usage: `platform-tui events list [--status ${listFlags.status.range.choices.join('|')}] [--type T] [--since 1h] [--limit N] [--json] [--data-dir DIR | --redis URL]`,
	description: 'List the events serve stored, newest first: time, id, type, status, chat and processing time, with the journal\'s size on disk. Works while serve runs.',
	flags: listFlags,
	examples: [
		'platform-tui events list --status failed --since 1h',
		'platform-tui events list --type external-module-chosen --json',
	],
	parse({flags, env}) {
		return {
			...parseStore(flags, env),
			...parseFilter(flags),
			limit: readFlags({limit: listFlags.limit}, {flags, env}).limit,
		};
	},
	async run(options, deps) {
		const {backend, where} = await openStore(options, 'read', deps.context.env, {warn: stderrWarning(deps.context.stderr)});
		try {
			// A damaged record is left out of the list and named after it (journal: record-codec.ts).
			const unreadable: Array<{id: string; reason: string}> = [];
			const events = await backend.list({...listFilter(options, deps.clock.now()), limit: options.limit, onUnreadable(id, reason) {
				unreadable.push({id, reason});
			}});
			if (deps.output.json) {
				for (const event of events) {
					deps.output.print({type: 'event', ...eventSummary(event)});
				}

				for (const record of unreadable) {
					deps.output.print({type: 'unreadable', ...record});
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
			if (unreadable.length > 0) {
				stderr.write(`${formatUnreadable(unreadable.map(record => record.id))}\n`);
			}

			return 0;
		} finally {
			await backend.close();
		}
	},
};

export default command;
