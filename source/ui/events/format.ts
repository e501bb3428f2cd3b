/** Pure formatting of journaled events for `events list` and `events show` (plain text and JSON). */
import type {BackendStats, StepRecord, StoredEvent} from '../../receiver/store/backend.js';
import {formatBytes} from '../../format/bytes.js';
import {formatMs} from '../../format/duration.js';
import {mask} from '../../format/secret.js';
import {formatTable, type TableFit} from '../../format/table.js';
import {plural} from '../../format/text.js';
import {bodyText} from '../../receiver/intake/body.js';
import {parsedBody, prettyBody} from './body.js';
import {editedFrom} from '../../receiver/intake/edit-event.js';
import {shortType} from '../event-type.js';

const pad2 = (value: number) => String(value).padStart(2, '0');

/** `2025-03-01 14:05:09` in local time. */
export function formatTime(iso: string): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) {
		return iso;
	}

	return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
}

/** `14:05:09.123` in local time. */
function formatClock(iso: string): string {
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? iso : `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** Header values with every signature masked. */
export function maskedHeaders(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, name.toLowerCase().includes('signature') ? mask(value) : value]));
}

function durationOf(event: StoredEvent): string {
	if (event.status === 'processing') {
		return 'running';
	}

	if (event.status === 'waiting') {
		return event.nextAttemptAt === undefined ? 'waiting' : `next ${formatTime(event.nextAttemptAt)}`;
	}

	return event.durationMs === undefined ? '-' : formatMs(event.durationMs);
}

const columns = ['TIME', 'ID', 'TYPE', 'STATUS', 'CHAT', 'DURATION'] as const;

/**
 * No id is cut, the event's nor the chat's, nor the time (shortened to the time of day first), the
 * status or the duration; the type is cut, then duration, chat, time and type drop.
 */
const eventTableFit: TableFit = {whole: [0, 1, 3, 4, 5], shorter: {0: cell => cell.slice(11)}, dropOrder: [5, 4, 0, 2]};

/**
 * The `events list` table, newest first as given: fitted to `width` on a terminal with the ids
 * whole, tab-separated and uncut when `width` is undefined (piped).
 */
export function formatEventTable(events: readonly StoredEvent[], width: number | undefined): string[] {
	const rows = events.map(event => [formatTime(event.receivedAt), event.id, shortType(event.event), event.status, event.chatId ?? '-', durationOf(event)]);
	return formatTable(columns, rows, width, eventTableFit);
}

/** `3 events shown of 120 in the journal /data/journal (1.20 MiB on disk).` */
export function formatListFooter(shown: number, stats: BackendStats, where: string): string {
	const disk = stats.bytes === undefined ? '' : ` (${formatBytes(stats.bytes)} on disk)`;
	return `${plural(shown, 'event')} shown of ${stats.count} in ${where}${disk}.`;
}

/** The sentence after a list that left out events whose records are damaged, naming each. */
export function formatUnreadable(ids: string[]): string {
	const those = ids.length === 1 ? 'its record is' : 'their records are';
	return `Could not read ${plural(ids.length, 'event')}, ${those} damaged: ${ids.join(', ')}. \`platform-tui events recover\` copies every other event into a fresh journal and keeps ${ids.length === 1 ? 'its id' : 'their ids'}.`;
}

/** One `events list --json` line. */
export function eventSummary(event: StoredEvent): Record<string, unknown> {
	return {
		id: event.id,
		event: event.event,
		status: event.status,
		receivedAt: event.receivedAt,
		updatedAt: event.updatedAt,
		...(event.chatId ? {chatId: event.chatId} : {}),
		...(event.durationMs === undefined ? {} : {durationMs: event.durationMs}),
		attempts: event.attempts,
		...(event.nextAttemptAt === undefined ? {} : {nextAttemptAt: event.nextAttemptAt}),
		...(event.error ? {error: event.error} : {}),
		...(event.note ? {note: event.note} : {}),
	};
}

/**
 * The `events show --json` object: everything, the signature masked, and `body` as the JSON it
 * holds (the raw text only when it is not JSON), so `jq .body.payload` works. A body that is not
 * valid UTF-8 is read with U+FFFD for its bad bytes, and its exact bytes come in `bodyBase64`.
 */
export function eventDetail(event: StoredEvent): Omit<StoredEvent, 'body' | 'bodyEncoding'> & {body: unknown; bodyBase64?: string; editedFrom?: string} {
	const {bodyEncoding, ...rest} = event;
	const text = bodyText(event);
	const parsed = parsedBody(text);
	const original = editedFrom(event);
	return {...rest, ...(original ? {editedFrom: original} : {}), headers: maskedHeaders(event.headers), body: parsed ? parsed.value : text, ...(bodyEncoding === 'base64' ? {bodyBase64: event.body} : {})};
}

/** Said under a body that is not valid UTF-8: what is shown is not what was received. */
export const notUtf8Note = '(not valid UTF-8: bad bytes shown as U+FFFD; `events export` writes the exact bytes)';

function stepLine(step: StepRecord): string {
	const parts = [formatClock(step.at), step.name];
	if (step.data && Object.keys(step.data).length > 0) {
		parts.push(JSON.stringify(step.data));
	}

	if (step.error) {
		parts.push(`error: ${step.error}`);
	}

	return `  ${parts.join('  ')}`;
}

/** The `events show` text: state, headers (signature masked), the body pretty-printed, the steps. */
export function formatEventDetail(event: StoredEvent): string[] {
	const lines = [
		`Event     ${event.id}`,
		`Type      ${event.event}`,
		`Status    ${event.status}${event.durationMs === undefined ? '' : ` after ${formatMs(event.durationMs)}`} (${plural(event.attempts, 'attempt')})`,
		`Received  ${formatTime(event.receivedAt)}`,
	];
	if (event.chatId) {
		lines.push(`Chat      ${event.chatId}`);
	}

	if (event.nextAttemptAt !== undefined) {
		lines.push(`Next      ${formatTime(event.nextAttemptAt)} (the next attempt after a transient failure)`);
	}

	const original = editedFrom(event);
	if (original) {
		lines.push(`Edited    from ${original}`);
	}

	if (event.error) {
		lines.push(`Error     ${event.error}`);
	}

	if (event.note) {
		lines.push(`Note      ${event.note}`);
	}

	const headers = Object.entries(maskedHeaders(event.headers));
	const width = Math.max(0, ...headers.map(([name]) => name.length));
	lines.push('', 'Headers', ...headers.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`));
	lines.push('', 'Body', ...prettyBody(event).split('\n').map(line => `  ${line}`));
	if (event.bodyEncoding === 'base64') {
		lines.push(`  ${notUtf8Note}`);
	}

	lines.push('', event.steps.length === 0 ? 'Steps     none recorded' : 'Steps', ...event.steps.map(step => stepLine(step)));
	return lines;
}
