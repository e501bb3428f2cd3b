import {Text} from 'ink';
import Spinner from 'ink-spinner';
import type {ReplayResult} from '../../receiver/backend.js';
import {rowParts, statusColor, toneColor} from './rows.js';
import type {LogRow} from './state.js';

/** A row of a job still running, with its spinner (none once the screen is quitting). */
export function LiveRow({row, width, spinning}: {row: LogRow; width: number; spinning: boolean}) {
	// Live stages are short ("generating (3 documents found)"): they always show in full.
	const parts = rowParts(row, width, {reserved: 2, minimumDetail: 32});
	return (
		<Text wrap="truncate-end">
			<Text dimColor>{parts.time}</Text>
			{'  '}
			<Text color={statusColor(row.status)}>{parts.status}</Text>
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
