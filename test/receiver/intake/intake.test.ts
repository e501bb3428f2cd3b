import {describe, expect, it} from 'vitest';
import {prepareWebhookSecrets, signWebhookBody} from '../../../source/platform/webhook-signature.js';
import {checkHeaders, intakeBody, type DeliveryHeaders, type IntakeConfig} from '../../../source/receiver/intake/intake.js';
import {chosenEvent, userMessageEvent} from '../helpers.js';

const secret = 'whsec_intake_0123456789';
const nowMs = Date.parse('2026-01-01T12:00:00Z');
const nowSeconds = String(nowMs / 1000);
const config: IntakeConfig = {keys: prepareWebhookSecrets([secret]), toleranceSeconds: 300, maxBodyBytes: 1024 * 1024, replayWindowMs: 24 * 3600 * 1000};

function headersFor(body: string | Buffer, extra: Partial<DeliveryHeaders> = {}): DeliveryHeaders {
	return {contentLength: String(Buffer.byteLength(body)), signature: signWebhookBody(body, secret), createdAt: nowSeconds, id: '', userAgent: '', ...extra};
}

function decide(body: string | Buffer, headers = headersFor(body)) {
	return intakeBody({headers, body: Buffer.from(body), nowMs, receivedAt: new Date(nowMs).toISOString(), fallbackId: 'no-id-1'}, config);
}

describe('the intake, without sockets (spec §4.2 order)', () => {
	it('checks the signature headers before the size: a 2 MiB body without them is 400, not 413', () => {
		const big = String(2 * 1024 * 1024);
		expect(checkHeaders({contentLength: big, signature: '', createdAt: '', id: '', userAgent: ''}, config)).toMatchObject({status: 400, reason: 'missing-signature-headers', error: 'Missing signature headers'});
		expect(checkHeaders({contentLength: big, signature: 'a'.repeat(64), createdAt: nowSeconds, id: 'evt_1', userAgent: ''}, config)).toMatchObject({status: 413, reason: 'body-too-large', eventId: 'evt_1', error: 'Request body too large (limit 1 MiB)'});
		expect(checkHeaders({contentLength: '100', signature: 'a'.repeat(64), createdAt: nowSeconds, id: '', userAgent: ''}, config)).toBeUndefined();
	});

	it('accepts a signed body that starts with a UTF-8 BOM', () => {
		const event = userMessageEvent({text: 'with a BOM'});
		event.createdAt = nowSeconds;
		const body = Buffer.concat([Buffer.from([0xEF, 0xBB, 0xBF]), Buffer.from(JSON.stringify(event))]);
		const decision = decide(body, headersFor(body));
		expect(decision).toMatchObject({kind: 'accept', view: {handling: 'logged', text: 'with a BOM'}});
	});

	it('takes a signature in either case, and refuses one with any character that is not a hex digit', () => {
		const body = JSON.stringify({...userMessageEvent({text: 'case'}), createdAt: nowSeconds});
		const signature = signWebhookBody(body, secret);
		expect(decide(body, headersFor(body, {signature: signature.toUpperCase()}))).toMatchObject({kind: 'accept'});
		const mixed = signature.replaceAll(/[a-f]/g, (digit, index: number) => index % 2 === 0 ? digit.toUpperCase() : digit);
		expect(decide(body, headersFor(body, {signature: mixed}))).toMatchObject({kind: 'accept'});
		// 'İ' (U+0130) and a full-width 'ａ' end in the byte of a hex digit: still not digits.
		for (const bad of [`${signature.slice(0, 62)}\u0130a`, `${signature.slice(0, 63)}\uFF41`, `${signature.slice(0, 63)}g`, signature.slice(0, 62)]) {
			expect(decide(body, headersFor(body, {signature: bad}))).toMatchObject({kind: 'reject', status: 400, reason: 'malformed-signature'});
		}
	});

	it('answers 400 to a verified body that is not JSON, or not an object', () => {
		expect(decide('{"event": ')).toMatchObject({kind: 'reject', status: 400, reason: 'invalid-json'});
		expect(decide('[1]')).toMatchObject({kind: 'reject', status: 400, reason: 'not-an-object'});
	});

	it('refuses an event whose body createdAt is older than the replay window, even freshly signed', () => {
		const event = userMessageEvent();
		event.createdAt = String((nowMs / 1000) - (25 * 3600));
		const body = JSON.stringify(event);
		const old = decide(body);
		expect(old).toMatchObject({kind: 'reject', status: 400, reason: 'event-too-old', eventId: event.id});
		expect(old.kind === 'reject' ? old.error : '').toContain('replay window (1d)');
		event.createdAt = String((nowMs / 1000) - (23 * 3600));
		expect(decide(JSON.stringify(event))).toMatchObject({kind: 'accept'});
	});

	it('classifies: a chosen event with the ids is received even without a text; one lacking ids is ignored with a note', () => {
		const chosen = chosenEvent({chatId: 'chat_1', text: 'x', assistantMessageId: 'msg_1', userId: 'user_1', companyId: 'company_1'});
		delete (chosen.payload as {userMessage?: unknown}).userMessage;
		expect(decide(JSON.stringify(chosen))).toMatchObject({kind: 'accept', event: {id: chosen.id, status: 'received', chatId: 'chat_1'}, view: {handling: 'queued'}});
		delete (chosen.payload as {assistantMessage?: unknown}).assistantMessage;
		expect(decide(JSON.stringify(chosen))).toMatchObject({
			kind: 'accept',
			event: {status: 'ignored', note: 'lacks payload.assistantMessage.id; no platform call made'},
			view: {handling: 'invalid', missing: ['payload.assistantMessage.id']},
		});
	});

	it('keeps the headers that matter with the event, and names an event without id by the fallback', () => {
		const withoutId = userMessageEvent();
		delete withoutId.id;
		const body = JSON.stringify(withoutId);
		const decision = decide(body, headersFor(body, {userAgent: 'Platform-Webhooks/1.0'}));
		expect(decision).toMatchObject({kind: 'accept', event: {id: 'no-id-1', headers: {'x-platform-created-at': nowSeconds, 'user-agent': 'Platform-Webhooks/1.0'}}});
	});
});
