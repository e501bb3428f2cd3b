/**
 * `events replay` over many events: the ids given (each once) or those `events list` filters
 * would show; `--dry-run` lists them only. A progress bar on a terminal, a line per event
 * otherwise, NDJSON with --json; exit 1 when any replay failed.
 */
import {formatMs} from '../../format/duration.js';
import {tableWidth} from '../../format/table.js';
import {plural} from '../../format/text.js';
import {eventTypes} from '../../platform/types.js';
import type {EventBackend, JobHandler, ListFilter, StoredEvent} from '../../receiver/store/backend.js';
import {replayMany, uniqueIds, type ReplayItem, type ReplaySummary} from '../../receiver/store/replay-many.js';
import {eventSummary, formatEventTable} from '../../ui/events/format.js';
import {JournalError} from '../../receiver/journal/errors.js';
import type {Deps} from '../../cli/deps.js';
import {storedEvent} from './shared.js';

export type BulkReplayOptions = {
	/** Where the events are, for the refusal of an ambiguous id. */
	directory: string;
	/** Whole ids or unique starts of them. */
	ids: string[];
	filter?: Omit<ListFilter, 'limit'>;
	dryRun: boolean;
	concurrency: number;
	/** Forwarding replays every type; the built-in answer only chosen-module events. */
	anyType: boolean;
};

type Selection = {events: StoredEvent[]; unknown: string[]; notReplayable: StoredEvent[]};

async function select(backend: EventBackend, options: BulkReplayOptions): Promise<Selection> {
	const found: StoredEvent[] = [];
	const unknown: string[] = [];
	if (options.filter) {
		found.push(...await backend.list({...options.filter, limit: 1_000_000}));
	}

	for (const id of uniqueIds(options.ids)) {
		const event = await storedEvent(backend, id, options.directory).catch((error: unknown) => {
			if (error instanceof JournalError && error.code === 'journal-event-unknown') {
				return undefined;
			}

			// An ambiguous start of an id is refused before anything is replayed.
			throw error;
		});
		if (event) {
			found.push(event);
		} else {
			unknown.push(id);
		}
	}

	const seen = new Set<string>();
	const events: StoredEvent[] = [];
	const notReplayable: StoredEvent[] = [];
	for (const event of found) {
		if (seen.has(event.id)) {
			continue;
		}

		seen.add(event.id);
		(options.anyType || event.event === eventTypes.externalModuleChosen ? events : notReplayable).push(event);
	}

	return {events, unknown, notReplayable};
}

function bar(done: number, total: number, width = 24): string {
	const filled = total === 0 ? width : Math.round(width * done / total);
	return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${done}/${total}`;
}

function summaryText(summary: ReplaySummary, notReplayable: number): string {
	const parts = [`${summary.answered} done`, `${summary.failed + summary.unknown} failed`, `${summary.skipped} skipped (processing elsewhere)`];
	if (summary.queued > 0) {
		parts.push(`${summary.queued} queued for the replicas`);
	}

	if (notReplayable > 0) {
		parts.push(`${notReplayable} not replayable (not chosen-module events)`);
	}

	return `Replayed ${plural(summary.total, 'event')}: ${parts.join(', ')}.`;
}

function itemLine(item: ReplayItem): string {
	const took = item.durationMs === undefined ? '' : ` in ${formatMs(item.durationMs)}`;
	switch (item.outcome) {
		case 'answered': {
			return `${item.id}  done${took}`;
		}

		case 'skipped': {
			return `${item.id}  skipped: processing in ${item.holder ?? 'another process'}`;
		}

		case 'queued': {
			return `${item.id}  queued for the replicas`;
		}

		default: {
			return `${item.id}  failed${took}: ${item.error ?? 'no reason given'}`;
		}
	}
}

export async function bulkReplay(backend: EventBackend, handler: () => JobHandler, options: BulkReplayOptions, deps: Deps): Promise<number> {
	const {context} = deps;
	const out = context.stdout;
	const {events, unknown, notReplayable} = await select(backend, options);
	if (options.dryRun) {
		for (const event of events) {
			deps.output.print({type: 'would-replay', ...eventSummary(event)});
		}

		deps.output.print({type: 'summary', dryRun: true, wouldReplay: events.length, notReplayable: notReplayable.length, unknown}, () => {
			const table = events.length > 0 ? `${formatEventTable(events, tableWidth(out)).join('\n')}\n` : '';
			const extra = notReplayable.length > 0 ? `; ${plural(notReplayable.length, 'event')} not replayable left out` : '';
			const missing = unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : '';
			return `${table}Would replay ${plural(events.length, 'event')}${extra}${missing} (dry run: nothing was sent).\n`;
		});

		return unknown.length > 0 ? 1 : 0;
	}

	// A terminal (never with --json): a progress bar on stderr instead of a line per event.
	const progress = context.interactive;
	const total = events.length + unknown.length;
	const summary = await replayMany(backend, [...events.map(event => event.id), ...unknown], handler(), {
		concurrency: options.concurrency,
		signal: context.signal,
		onItem(item, done) {
			if (!progress) {
				deps.output.print({type: 'replay', id: item.id, status: item.outcome, ...(item.durationMs === undefined ? {} : {durationMs: item.durationMs}), ...(item.error ? {error: item.error} : {}), ...(item.holder ? {holder: item.holder} : {})}, `${itemLine(item)}\n`);
				return;
			}

			context.stderr.write(`\r${bar(done, total)}  ${item.outcome === 'answered' ? '' : itemLine(item).slice(0, 60)}\u001B[K`);
			if (item.outcome === 'failed' || item.outcome === 'unknown') {
				context.stderr.write(`\n${itemLine(item)}\n`);
			}
		},
	});
	if (progress) {
		context.stderr.write('\n');
	}

	deps.output.print(
		{type: 'summary', total: summary.total, done: summary.answered, failed: summary.failed + summary.unknown, skipped: summary.skipped, queued: summary.queued, notReplayable: notReplayable.length},
		`${summaryText(summary, notReplayable.length)}\n`,
	);

	return summary.failed + summary.unknown > 0 ? 1 : 0;
}
