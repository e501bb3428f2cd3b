/**
 * The intake of a webhook delivery, pure (no sockets, no clock of its own): spec §4.2's order —
 * signature headers, then the size limit, then verification — then the body read as JSON, the
 * replay window, and the event classified into what the backend stores and what the log shows.
 * Exactly-once is the backend's (`accept` answers 'duplicate'). Tests call these without a server.
 */
import {isUtf8} from 'node:buffer';
import {formatBytes} from '../../format/bytes.js';
import {formatCompactDuration} from '../../format/duration.js';
import {isRecord} from '../../format/value.js';
import {eventTypes} from '../../platform/types.js';
import {verifyWebhookSignature, type PreparedSecret} from '../../platform/webhook-signature.js';
import type {NewEvent} from '../store/backend.js';
import {parseChosenEvent} from './chosen-event.js';
import type {AcceptedEvent, RejectionReason} from '../events.js';

/** Error bodies of the webhook route (spec §4.2, §7). */
export const receiverErrors = {
	missingHeaders: 'Missing signature headers',
	invalidSignature: 'Invalid signature',
	invalidJson: 'Invalid JSON body',
	notAnObject: 'Invalid event: the body must be a JSON object',
	tooLarge: 'Request body too large (limit 1 MiB)',
	tooOld: 'Event too old: its createdAt is outside the replay window',
	busy: 'Receiver busy, retry later',
	backlogFull: 'Receiver backlog full, retry later',
	unavailable: 'Event store unavailable, retry later',
	shuttingDown: 'Receiver shutting down, retry later',
} as const;

/** The headers a delivery is read by (first occurrence of each, trimmed; '' when absent). */
export type DeliveryHeaders = {contentLength: string; signature: string; createdAt: string; id: string; userAgent: string};

export type Rejection = {kind: 'reject'; status: number; reason: RejectionReason; error: string; eventId?: string; headers?: Record<string, string>};

export type Acceptance = {
	kind: 'accept';
	/** What the backend stores. */
	event: NewEvent;
	/** What the log shows (the receiver adds time, request number, address and status). */
	view: Omit<AcceptedEvent, 'type' | 'at' | 'request' | 'remoteAddress' | 'status'>;
};

export type IntakeDecision = Rejection | Acceptance;

export type IntakeConfig = {
	keys: readonly PreparedSecret[];
	toleranceSeconds: number;
	maxBodyBytes: number;
	/** Events whose body `createdAt` is older than this are refused: their id may be forgotten. */
	replayWindowMs: number;
};

function reject(status: number, reason: RejectionReason, error: string, eventId?: string): Rejection {
	return eventId ? {kind: 'reject', status, reason, error, eventId} : {kind: 'reject', status, reason, error};
}

/** The 413 body for a limit. */
export function tooLargeError(maxBodyBytes: number): string {
	return receiverErrors.tooLarge.replace('1 MiB', formatBytes(maxBodyBytes).replace('.00 ', ' '));
}

/**
 * Step 1 and the announced size (before any body byte is read): missing signature headers → 400
 * (even for a huge body), a Content-Length over the limit → 413.
 */
export function checkHeaders(headers: DeliveryHeaders, config: Pick<IntakeConfig, 'maxBodyBytes'>): Rejection | undefined {
	const eventId = headers.id || undefined;
	if (!headers.signature || !headers.createdAt) {
		return reject(400, 'missing-signature-headers', receiverErrors.missingHeaders, eventId);
	}

	if (Number(headers.contentLength || '0') > config.maxBodyBytes) {
		return reject(413, 'body-too-large', tooLargeError(config.maxBodyBytes), eventId);
	}

	return undefined;
}

const bom = '\uFEFF';

function stringField(object: Record<string, unknown> | undefined, field: string): string | undefined {
	const value = object?.[field];
	return typeof value === 'string' ? value : undefined;
}

/** The body's `createdAt` (unix seconds as a string or number, or ISO 8601) in ms; undefined when absent or unreadable. */
export function createdAtMs(value: unknown): number | undefined {
	if (typeof value === 'number' && Number.isFinite(value)) {
		return value * 1000;
	}

	if (typeof value !== 'string') {
		return undefined;
	}

	const text = value.trim();
	if (text === '') {
		return undefined;
	}

	if (text.length <= 12 && isDigits(text)) {
		return Number(text) * 1000;
	}

	const parsed = Date.parse(value);
	return Number.isNaN(parsed) ? undefined : parsed;
}

function isDigits(text: string): boolean {
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code < 48 || code > 57) {
			return false;
		}
	}

	return true;
}

/**
 * Steps 2–3 on the whole body: verify (HMAC of the exact bytes, Created-At within the tolerance),
 * read the JSON (a leading UTF-8 BOM is skipped: it is signed like any byte), refuse an event
 * older than the replay window, and classify it.
 */
export function intakeBody(input: {headers: DeliveryHeaders; body: Buffer; nowMs: number; receivedAt: string; fallbackId: string}, config: IntakeConfig): IntakeDecision {
	const {headers, body, nowMs} = input;
	const headerId = headers.id || undefined;
	const check = verifyWebhookSignature({body, signature: headers.signature, createdAt: headers.createdAt, secrets: config.keys, toleranceSeconds: config.toleranceSeconds, nowSeconds: Math.floor(nowMs / 1000)});
	if (!check.ok) {
		return reject(400, check.reason, receiverErrors.invalidSignature, headerId);
	}

	// The stored body is the exact bytes: the text itself when it is UTF-8 (byte-order mark
	// included), else base64. One scan of the bytes (simdutf) on the common path.
	const raw = body.toString('utf8');
	const utf8 = isUtf8(body);
	const stored = utf8 ? {text: raw, encoding: undefined} : {text: body.toString('base64'), encoding: 'base64' as const};
	// One literal with every field, as intakeFrame's (no spread of `input`: a spread's copy has a
	// hidden class of its own, and V8 made four new ones per delivery from it).
	return readEvent(raw, {nowMs, receivedAt: input.receivedAt, fallbackId: input.fallbackId, headerRecord: deliveryHeaderRecord(headers), headerId, secretIndex: check.secretIndex, stored}, config);
}

/**
 * One event frame of the event socket (no signature: the stream is authenticated by the key), read
 * as a delivery's body is: JSON, the replay window, classified. Its stored headers name the
 * source (`x-platform-source: event-socket`), which `events show` and the inspector show.
 */
export function intakeFrame(input: {text: string; nowMs: number; receivedAt: string; fallbackId: string}, config: Pick<IntakeConfig, 'replayWindowMs'>): IntakeDecision {
	return readEvent(input.text, {nowMs: input.nowMs, receivedAt: input.receivedAt, fallbackId: input.fallbackId, headerRecord: {[socketSourceHeader]: 'event-socket'}, headerId: undefined, secretIndex: undefined, stored: {text: input.text}}, config);
}

/** The stored header that tells an event came over the event socket. */
export const socketSourceHeader = 'x-platform-source';

type ReadInput = {
	nowMs: number;
	receivedAt: string;
	fallbackId: string;
	headerRecord: Record<string, string>;
	headerId: string | undefined;
	secretIndex: number | undefined;
	stored: {text: string; encoding?: 'base64'};
};

/** The body read as JSON (a leading UTF-8 BOM skipped), the replay window, then the classification. */
function readEvent(raw: string, input: ReadInput, config: Pick<IntakeConfig, 'replayWindowMs'>): IntakeDecision {
	const {headerId, nowMs} = input;
	const text = raw.startsWith(bom) ? raw.slice(1) : raw;
	let parsed: unknown;
	try {
		parsed = JSON.parse(text) as unknown;
	} catch {
		return reject(400, 'invalid-json', receiverErrors.invalidJson, headerId);
	}

	if (!isRecord(parsed)) {
		return reject(400, 'not-an-object', receiverErrors.notAnObject, headerId);
	}

	const bodyId = stringField(parsed, 'id');
	const eventId = bodyId || headerId;
	const created = createdAtMs(parsed.createdAt);
	if (created !== undefined && nowMs - created > config.replayWindowMs) {
		return reject(400, 'event-too-old', `${receiverErrors.tooOld} (${formatCompactDuration(config.replayWindowMs)})`, eventId);
	}

	return classify(parsed, input, eventId);
}

/**
 * What the backend stores and what the log shows. Both are built as whole object literals, every
 * field present (undefined when it does not apply): one hidden class each for every delivery,
 * which the hot path depends on (a field added later makes V8 build new ones).
 */
function classify(parsed: Record<string, unknown>, input: ReadInput, headerOrBodyId: string | undefined): Acceptance {
	const eventType = stringField(parsed, 'event') ?? '(none)';
	const payload = isRecord(parsed.payload) ? parsed.payload : undefined;
	let eventId = headerOrBodyId;
	let handling: Acceptance['view']['handling'] = 'unhandled';
	let chatId: string | undefined;
	let shown: string | undefined;
	let missing: string[] | undefined;
	let status: NewEvent['status'] = 'ignored';
	let note = 'unhandled event type';
	if (eventType === eventTypes.userMessageCreated) {
		handling = 'logged';
		status = 'logged';
		chatId = stringField(payload, 'chatId');
		shown = stringField(payload, 'text');
	} else if (eventType === eventTypes.externalModuleChosen) {
		const userMessage = isRecord(payload?.userMessage) ? payload.userMessage : undefined;
		chatId = stringField(payload, 'chatid');
		shown = stringField(userMessage, 'text');
		const result = parseChosenEvent(parsed, eventId ?? input.fallbackId);
		if ('missing' in result) {
			handling = 'invalid';
			missing = result.missing;
			note = `lacks ${result.missing.join(', ')}; no platform call made`;
		} else {
			handling = 'queued';
			eventId = result.job.eventId;
			status = 'received';
		}
	}

	const view: Acceptance['view'] = {
		eventId,
		eventType,
		handling,
		chatId,
		userId: stringField(parsed, 'userId') || undefined,
		companyId: stringField(parsed, 'companyId') || undefined,
		text: shown,
		missing,
		secretIndex: input.secretIndex,
	};
	const event: NewEvent = {
		id: eventId ?? input.fallbackId,
		event: eventType,
		receivedAt: input.receivedAt,
		body: input.stored.text,
		bodyEncoding: input.stored.encoding,
		headers: input.headerRecord,
		chatId,
		status,
		note: status === 'ignored' ? note : undefined,
	};
	return {kind: 'accept', event, view};
}

/** The delivery headers that matter, as stored with the event (lower-case names; absent ones left out). */
function deliveryHeaderRecord(headers: DeliveryHeaders): Record<string, string> {
	if (headers.id && headers.userAgent) {
		// Every header present, as in a platform's delivery: one literal.
		return {'x-platform-signature': headers.signature, 'x-platform-created-at': headers.createdAt, 'x-platform-id': headers.id, 'user-agent': headers.userAgent};
	}

	const record: Record<string, string> = {'x-platform-signature': headers.signature, 'x-platform-created-at': headers.createdAt};
	if (headers.id) {
		record['x-platform-id'] = headers.id;
	}

	if (headers.userAgent) {
		record['user-agent'] = headers.userAgent;
	}

	return record;
}
