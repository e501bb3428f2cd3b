/**
 * The event socket's intake (`listen`): one frame's event, read as a delivery's body is
 * (intake.ts), stored in the same backend under the same exactly-once id before anything else
 * happens, then handed to the same jobs (the answer, or the forward). No HTTP answer: the outcome
 * is reported as the receiver's typed events (`accepted`/`duplicate` with `via: 'event-socket'`).
 */
import {isoNow} from '../clock.js';
import {intakeFrame} from './intake.js';
import {acceptedEvent, forwardAll, type RouteContext} from './routes.js';

/** What became of one frame: stored (new), a duplicate of a stored id, refused (the reason), or not stored (the store failed). */
export type FrameOutcome = {kind: 'stored' | 'duplicate'; eventId: string} | {kind: 'refused'; reason: string} | {kind: 'store-failed'; eventId: string; error: string};

type FrameContext = Pick<RouteContext, 'stats' | 'intake' | 'backend' | 'jobs' | 'forwarding' | 'emit'>;

/** Stores one frame's event and starts its job; resolves once it is stored (or not). */
export async function ingestFrame(context: FrameContext, text: string, frame: number, origin: string): Promise<FrameOutcome> {
	const {stats} = context;
	const nowMs = Date.now();
	stats.received++;
	const decision = intakeFrame({text, nowMs, receivedAt: isoNow(nowMs), fallbackId: 'no-id'}, context.intake);
	if (decision.kind === 'reject') {
		stats.rejected++;
		return {kind: 'refused', reason: decision.error};
	}

	if (context.forwarding) {
		forwardAll(decision);
	}

	const {event, view} = decision;
	let result: Awaited<ReturnType<typeof context.backend.accept>>;
	try {
		result = await context.backend.accept(event);
	} catch (error) {
		return {kind: 'store-failed', eventId: event.id, error: error instanceof Error ? error.message : String(error)};
	}

	const at = isoNow();
	stats.verified++;
	if (result === 'duplicate') {
		stats.duplicates++;
		context.emit({type: 'duplicate', at, request: frame, remoteAddress: origin, status: 200, eventId: event.id, eventType: view.eventType, chatId: view.chatId || undefined, via: 'event-socket'});
		return {kind: 'duplicate', eventId: event.id};
	}

	if (view.handling === 'invalid') {
		stats.failed++;
	}

	if (event.status === 'received') {
		context.jobs.track(event.id, event.chatId);
	}

	context.emit(acceptedEvent(view, at, frame, origin, 'event-socket'));
	return {kind: 'stored', eventId: event.id};
}
