import {formatMs} from '../../format/duration.js';
import {plural, shortText} from '../../format/text.js';
import {shortType} from '../event-type.js';
import {counterItems, separator, stopItems} from './counter-items.js';
import type {AcceptedEvent, ReceiverCounters, ReceiverEvent, RejectionReason, StageEvent} from '../../receiver/events.js';

/** Local wall-clock time HH:MM:SS of an ISO timestamp. */
export function clock(iso: string): string {
	const date = new Date(iso);
	const pad = (value: number) => String(value).padStart(2, '0');
	return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

const reasonTexts: Record<RejectionReason, string> = {
	'body-too-large': 'body over the size limit',
	'missing-signature-headers': 'X-Platform-Signature or X-Platform-Created-At missing',
	'malformed-signature': 'signature is not 64 hex characters',
	'signature-mismatch': 'HMAC does not match any endpoint secret',
	'malformed-timestamp': 'Created-At is not unix seconds',
	'timestamp-outside-tolerance': 'Created-At outside the tolerance',
	'invalid-json': 'body is not JSON',
	'not-an-object': 'body is not a JSON object',
	'event-too-old': 'createdAt older than the replay window',
	busy: 'job queue full',
	'backlog-full': 'backlog over --max-backlog',
	'backend-unavailable': 'event store unavailable',
	'shutting-down': 'receiver shutting down',
	'not-found': 'unknown path',
	'method-not-allowed': 'method not allowed',
};

/** Why a request was rejected, in words. */
export function rejectionText(reason: RejectionReason): string {
	return reasonTexts[reason];
}

/** A forward attempt in words: `→ 200 in 35 ms`, `→ 503 in 4 ms, retry 2 in 1.0 s`. */
export function forwardText(forward: NonNullable<StageEvent['forward']>): string {
	const result = forward.status === undefined ? `failed (${forward.error ?? 'no answer'})` : `→ ${forward.status}`;
	const retry = forward.retryInMs === undefined ? '' : `, retry ${forward.attempt + 1} in ${formatMs(forward.retryInMs)}`;
	return `forward ${result} in ${formatMs(forward.ms)}${retry}`;
}

/** The live stage of a chosen-module job, in words. */
export function stageText(event: Pick<StageEvent, 'stage' | 'documents' | 'durationMs' | 'reason' | 'cleanup' | 'forward' | 'finalStatus' | 'storeLost' | 'nextAttemptAt' | 'waitingFor' | 'tries'>): string {
	const text = stageWords(event);
	return event.storeLost ? `${text}; its record was lost with the Redis data while it ran (finished from this replica's copy)` : text;
}

/** `waiting: next attempt at 14:05:09 (wait 3, the answer): POST /search … HTTP 503`. */
function waitingWords(event: Pick<StageEvent, 'reason' | 'nextAttemptAt' | 'waitingFor' | 'tries'>): string {
	const what = event.waitingFor === undefined ? '' : `, ${waitWords[event.waitingFor] ?? event.waitingFor}`;
	const at = event.nextAttemptAt === undefined ? 'later' : `at ${clock(event.nextAttemptAt)}`;
	return `waiting: next attempt ${at} (wait ${event.tries ?? 1}${what})${event.reason ? `: ${event.reason}` : ''}`;
}

const waitWords: Record<string, string> = {answer: 'the answer', apology: 'the apology', final: 'the final message', forward: 'the forward', store: 'the store could not record'};

function stageWords(event: Pick<StageEvent, 'stage' | 'documents' | 'durationMs' | 'reason' | 'cleanup' | 'forward' | 'finalStatus' | 'nextAttemptAt' | 'waitingFor' | 'tries'>): string {
	if (event.stage === 'waiting') {
		return waitingWords(event);
	}

	if (event.forward && event.stage !== 'failed') {
		return event.stage === 'answered' ? `forwarded: ${forwardText(event.forward)}` : forwardText(event.forward);
	}

	switch (event.stage) {
		case 'forwarding': {
			return 'forwarding';
		}

		case 'queued':
		case 'searching': {
			return event.stage;
		}

		case 'generating': {
			return `generating (${plural(event.documents ?? 0, 'document')} found)`;
		}

		case 'answered': {
			return `answered in ${formatMs(event.durationMs ?? 0)}`;
		}

		case 'elsewhere': {
			return event.finalStatus ? `${event.finalStatus} by another replica` : 'ended on another replica';
		}

		case 'lost': {
			return 'lost with the Redis data (FLUSHALL, or a restart of Redis without persistence) before it was answered here; not processed';
		}

		case 'failed': {
			const cleanup = event.cleanup;
			const parts: string[] = [];
			if (cleanup) {
				if (cleanup.logsFailed > 0) {
					parts.push(`${plural(cleanup.logsFailed, 'log')} set FAILED`);
				}

				parts.push(cleanup.apologyWritten ? 'apology written' : 'apology NOT written');
				if (cleanup.errors.length > 0) {
					parts.push(cleanup.errors.join('; '));
				}
			}

			return `failed: ${event.reason ?? 'unknown error'}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
		}
	}
}

/** What happened to an accepted event, in words. */
export function handlingText(event: AcceptedEvent): string {
	switch (event.handling) {
		case 'logged':
		case 'queued': {
			return event.handling;
		}

		case 'unhandled': {
			return 'unhandled event type';
		}

		case 'invalid': {
			return `invalid: lacks ${(event.missing ?? []).join(', ')}; no platform call made`;
		}
	}
}

export function countersText(counters: ReceiverCounters): string {
	return counterItems(counters).map(item => item.text).join(separator);
}

/** One plain log line per receiver event (no TTY, or CI set). */
export function plainLine(event: ReceiverEvent): string {
	const time = clock(event.at);
	switch (event.type) {
		case 'rejected': {
			const id = event.eventId ? ` ${event.eventId}` : '';
			return `${time}  ${event.status}  ${event.method} ${event.path}  rejected: ${event.error} (${rejectionText(event.reason)}) from ${event.remoteAddress}${id}`;
		}

		case 'accepted': {
			const parts = [time, String(event.status), shortType(event.eventType), event.eventId ?? '(no id)'];
			if (event.chatId) {
				parts.push(`chat ${event.chatId}`);
			}

			if (event.text !== undefined) {
				parts.push(JSON.stringify(shortText(event.text, 60)));
			}

			parts.push(handlingText(event));
			return parts.join('  ');
		}

		case 'duplicate': {
			return `${time}  ${event.status}  ${shortType(event.eventType)}  ${event.eventId}${event.chatId ? `  chat ${event.chatId}` : ''}  duplicate delivery, not processed again`;
		}

		case 'stage': {
			return `${time}  ${event.eventId}  chat ${event.chatId}  ${stageText(event)}`;
		}

		case 'draining': {
			return event.jobs === 0 ? `${time}  stopping: no new events; no job running` : `${time}  stopping: no new events; waiting up to ${formatMs(event.timeoutMs)} for ${plural(event.jobs, 'job')}`;
		}

		case 'stopped': {
			const left = stopItems({cutOff: event.cutOff, leftWaiting: event.leftWaiting}).map(item => item.text).join(', ');
			return `${time}  stopped: ${countersText(event.counters)}${left === '' ? '' : `; ${left}`}`;
		}
	}
}
