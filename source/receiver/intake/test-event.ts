import {randomBytes} from 'node:crypto';
import {eventTypes, type ExternalModuleChosenPayload, type UserMessageCreatedPayload, type WebhookEvent} from '../../platform/types.js';
import {fullEventType, shortEventName} from '../event-names.js';
import {signWebhookBody, webhookHeaders, webhookPayloadVersion} from '../../platform/webhook-signature.js';

/** The test events `platform-tui trigger` can send. */
export type TestEventKind = 'user-message' | 'external-module-chosen';

/** Reads a kind name (short or full event name); undefined when unknown. */
export function parseTestEventKind(name: string): TestEventKind | undefined {
	const type = fullEventType(name);
	return type === undefined ? undefined : shortEventName(type);
}

/** An id shaped like the platform's: `<prefix>_` and 24 lowercase hex characters. */
export function randomId(prefix: string): string {
	return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export type TestEventOptions = {
	/** Event id; a fresh `evt_…` when absent. */
	id?: string;
	text?: string;
	chatId?: string;
	userId?: string;
	companyId?: string;
	assistantId?: string;
	/** For the chosen event: the assistant message to answer. */
	assistantMessageId?: string;
	now?: Date;
};

/** Builds a webhook envelope exactly as the platform sends it (platform-api.md, "Webhooks"). */
export function buildTestEvent(kind: TestEventKind, options: TestEventOptions = {}): WebhookEvent<UserMessageCreatedPayload | ExternalModuleChosenPayload> {
	const now = options.now ?? new Date();
	const chatId = options.chatId ?? randomId('chat');
	const assistantId = options.assistantId ?? randomId('assistant');
	const text = options.text ?? 'Hello from platform-tui trigger';
	const base = {
		id: options.id ?? randomId('evt'),
		version: webhookPayloadVersion,
		createdAt: String(Math.floor(now.getTime() / 1000)),
		userId: options.userId ?? 'user_trigger',
		companyId: options.companyId ?? 'company_trigger',
	};
	if (kind === 'user-message') {
		return {...base, event: eventTypes.userMessageCreated, payload: {chatId, assistantId, text}};
	}

	return {
		...base,
		event: eventTypes.externalModuleChosen,
		payload: {
			name: 'ExternalModule',
			description: 'Test event sent by platform-tui trigger',
			configuration: {},
			chatid: chatId,
			assistantId,
			userMessage: {id: randomId('msg'), text, createdAt: now.toISOString()},
			assistantMessage: {id: options.assistantMessageId ?? randomId('msg'), createdAt: now.toISOString()},
		},
	};
}

/** What a delivery's headers repeat from its body (each header only when the body field is text). */
export type DeliveryFields = {id?: unknown; version?: unknown; userId?: unknown; companyId?: unknown};

/**
 * The headers of a delivery of these exact body bytes, signed now with `secret` (Created-At taken
 * at this moment), as the platform sends them. A header whose body field is not text is left out.
 */
export function signBody(body: string, fields: DeliveryFields, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): {body: string; headers: Record<string, string>} {
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		[webhookHeaders.signature]: signWebhookBody(body, secret),
		[webhookHeaders.createdAt]: String(nowSeconds),
	};
	const named = [[webhookHeaders.id, fields.id], [webhookHeaders.version, fields.version], [webhookHeaders.userId, fields.userId], [webhookHeaders.companyId, fields.companyId]] as const;
	for (const [name, value] of named) {
		if (typeof value === 'string') {
			headers[name] = value;
		}
	}

	return {body, headers};
}

/** The body bytes and headers of a delivery, signed now with `secret` (Created-At taken at this moment). */
export function signDelivery(event: WebhookEvent<unknown>, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): {body: string; headers: Record<string, string>} {
	return signBody(JSON.stringify(event), event, secret, nowSeconds);
}
