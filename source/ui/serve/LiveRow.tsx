import {Text} from 'ink';
import Spinner from 'ink-spinner';
import type {ReplayResult} from '../../receiver/store/backend.js';
import {rowParts, statusColor, toneColor} from './rows.js';
import type {LogRow} from './state.js';
import {oneLine} from '../../format/width.js';

/** A row of a job still running, with its spinner (none once the screen is quitting). */
export function LiveRow({row, width, spinning}: {row: LogRow; width: number; spinning: boolean}) {
	// Live stages are short ("generating (3 documents found)"): they always show in full, the type,
	// chat and text give way first.
	const parts = rowParts(row, width, {reserved: 2, minimumDetail: 32});
	return (
		<Text wrap="truncate-end">
			<Text dimColor>{parts.time}</Text>
			{'  '}
			<Text color={row.status === undefined ? undefined : statusColor(row.status)} dimColor={row.status === undefined}>{parts.status}</Text>
			{parts.middle}
			{spinning ? <Text color="cyan"><Spinner type="dots" />{' '}</Text> : '  '}
			<Text color={toneColor[row.tone]}>{parts.detail}</Text>
		</Text>
	);
}

/** What a replay from the screen did, in words. */
export function replayText(id: string, result: ReplayResult): string {
	switch (result.outcome) {
		case 'done': {
			return `replayed ${id}: ${result.result.status}${result.result.error ? ` (${result.result.error})` : ''}`;
		}

		case 'queued': {
			return `replay of ${id} queued for the replicas`;
		}

		case 'busy': {
			return `${id} is being processed by ${result.holder}; not replayed`;
		}

		case 'unknown': {
			return `${id} is no longer stored`;
		}
	}
}

/** Why `r` replays nothing for the selected row (undefined: it may be replayed). */
export function replayRefusal(row: LogRow | undefined, canReplay: boolean): string | undefined {
	if (!row) {
		return 'select a failed event with ↑/↓ first, then press r to replay it';
	}

	if (!row.eventId) {
		return 'not replayed: this request named no event';
	}

	if (!canReplay) {
		return `not replayed: ${row.eventId} cannot be replayed from this screen`;
	}

	if (row.stage !== 'failed') {
		return `not replayed: ${row.eventId} did not fail (${oneLine(row.detail, 40)}); r replays failed events`;
	}

	return undefined;
}
