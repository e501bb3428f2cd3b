/** The details of a selected event, as `events show` prints them, cut to fit (pure). */
import {wrapKeepingIds} from '../../format/ids.js';
import {cutCodePoints} from '../../format/text.js';
import {cutToWidth, displayWidth} from '../../format/width.js';
import type {StoredEvent} from '../../receiver/store/backend.js';
import {prettyBody} from '../events/body.js';
import {maskedHeaders} from '../events/format.js';
import {clock} from './format.js';
import type {LogRow} from './state.js';

/**
 * The lines of the details box: the row's full detail (errors are never cut here), then the stored
 * event when the backend has it: status and attempts, the headers (signature masked), each step
 * with its time and result or error, and the body, wrapped. Each line fits `width` (an id is never
 * split: one wider than a whole line keeps a line of its own); at most `maxLines`.
 */
export function detailLines(row: LogRow, event: StoredEvent | undefined, width: number, maxLines: number): string[] {
	const lines: string[] = [];
	let bodyCut = false;
	// Wrapped between words in display columns: an id is never split across two lines.
	const wrap = (text: string) => {
		lines.push(...wrapKeepingIds(text, width));
	};

	wrap(`${row.eventId ?? row.label}: ${row.full ?? row.detail}`);
	if (event) {
		wrap(`${event.event}  status ${event.status}  attempts ${event.attempts}  received ${event.receivedAt}${event.durationMs === undefined ? '' : `  took ${event.durationMs} ms`}`);
		if (event.note) {
			wrap(`note: ${event.note}`);
		}

		if (event.error) {
			wrap(`error: ${event.error}`);
		}

		const headers = Object.entries(maskedHeaders(event.headers)).map(([name, value]) => `${name}: ${value}`);
		wrap(`headers  ${headers.join('  ')}`);
		for (const step of event.steps) {
			wrap(`${clock(step.at)}  ${step.name}${step.error ? `  error: ${step.error}` : ''}`);
		}

		// A body past the budget is wrapped only so far (the box shows a window's worth of it), and
		// the last line says there is more.
		const body = prettyBody(event);
		const shown = cutCodePoints(body, bodyBudget);
		bodyCut = shown.length < body.length;
		wrap(shown);
	}

	if (!bodyCut && lines.length <= maxLines) {
		return lines;
	}

	const kept = lines.slice(0, Math.max(0, Math.min(lines.length, maxLines - 1)));
	kept.push(moreLinesHint(lines.length - kept.length, row.eventId, width, bodyCut));
	return kept;
}

/** Code points of a body the details wrap at most (wrapping measures each character of it). */
const bodyBudget = 65_536;

/**
 * The last line of cut details: how many lines are left out (`atLeast`: at least that many, the
 * body was not wrapped to its end) and the command that shows them, never cut mid-id.
 */
export function moreLinesHint(count: number, eventId: string | undefined, width: number, atLeast = false): string {
	const more = atLeast ? `… ${count > 0 ? `${count}+ ` : ''}more lines` : `… ${count} more lines`;
	const variants = eventId ? [`${more} (platform-tui events show ${eventId})`, `${more}: events show ${eventId}`, `${more}: ${eventId}`] : [];
	return variants.find(variant => displayWidth(variant) <= width) ?? cutToWidth(more, width);
}
