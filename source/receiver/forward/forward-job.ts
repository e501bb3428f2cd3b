/**
 * serve's job handler with --forward-to: the forward (forward.ts) of every stored event, its
 * attempts reported as stage events and the `processing`, `answered` and `failed` counters kept,
 * as answer-job.ts does for the built-in answer.
 */
import type {JobHandler} from '../store/backend.js';
import {bodyText} from '../intake/body.js';
import type {ForwardAttempt, ReceiverCounters, StageEvent} from '../events.js';
import {createForwarder, type ForwardOptions, type Forwarder} from './forward.js';
import {OpenJobs} from '../store/open-jobs.js';
import {waitsOf} from '../answer/retry-schedule.js';

export type ForwardJobContext = {
	counters: ReceiverCounters;
	emit(event: StageEvent): void;
	now(): string;
	onRetry?: () => void;
};

export type ForwardJobs = {handler: JobHandler; track(eventId: string, chatId?: string): void; open: OpenJobs; close(): Promise<void>};

function chatOf(body: string): string {
	const found = /"chat[iI]d"\s*:\s*"([^"]*)"/.exec(body);
	return found?.[1] ?? '';
}

export function forwardJobs(options: ForwardOptions, context: ForwardJobContext): ForwardJobs {
	const {counters} = context;
	const open = new OpenJobs(counters);
	const lastAttempt = new Map<string, ForwardAttempt>();

	const forwarder: Forwarder = createForwarder({
		...options,
		onAttempt(event, attempt) {
			lastAttempt.set(event.id, attempt);
			if (attempt.retryInMs !== undefined) {
				context.onRetry?.();
				context.emit({type: 'stage', at: context.now(), eventId: event.id, chatId: event.chatId ?? chatOf(bodyText(event)), stage: 'forwarding', eventType: event.event, forward: attempt});
			}

			options.onAttempt?.(event, attempt);
		},
	});
	const handler: JobHandler = async job => {
		const {event} = job;
		open.start(event.id);
		const chatId = event.chatId ?? chatOf(bodyText(event));
		const result = await forwarder.handler(job).catch((error: unknown) => ({status: 'failed' as const, error: error instanceof Error ? error.message : String(error)}));
		const durationMs = open.end(event.id);
		const last = lastAttempt.get(event.id);
		lastAttempt.delete(event.id);
		const base = {type: 'stage' as const, at: context.now(), eventId: event.id, chatId, eventType: event.event, durationMs, ...(job.storeLost?.() === true ? {storeLost: true} : {})};
		if (result.status === 'answered') {
			counters.answered++;
			context.emit({...base, stage: 'answered', ...(last ? {forward: last} : {})});
		} else if (result.status === 'waiting') {
			context.emit({...base, stage: 'waiting', nextAttemptAt: result.nextAttemptAt, waitingFor: 'forward', tries: waitsOf(job.event.steps).tries + 1, reason: result.error ?? 'the forward failed'});
		} else {
			counters.failed++;
			context.emit({...base, stage: 'failed', reason: result.error ?? 'the forward failed'});
		}

		return result;
	};

	return {handler, track: (eventId, chatId) => {
		open.track(eventId, chatId);
	}, open, close: async () => forwarder.close()};
}
