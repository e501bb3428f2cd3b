import {eventTypes, type ExternalModuleChosenPayload, type UserMessageCreatedPayload, type WebhookEvent} from '../../platform/types.js';
import {webhookPayloadVersion} from '../../platform/webhook-signature.js';
import type {ChatRecord, ChatStore, MessageRecord} from './chat-store.js';
import type {PlatformClock} from '../clock.js';
import type {Caller} from '../context.js';
import {newId} from '../ids.js';
import type {ExternalModule} from './spaces.js';
import type {ResolvedOptions} from '../options.js';
import type {LocalPlatformEvent} from '../types.js';
import {WebhookDispatcher, type DeliveryRecord} from './webhooks.js';

export type ExternalAnswerParts = {
	dispatcher: WebhookDispatcher;
	/** Publishes an event on the event socket (every event a webhook carries goes there too). */
	publish: (event: WebhookEvent<unknown>) => void;
	chats: ChatStore;
	clock: PlatformClock;
	signal: AbortSignal;
	module: () => ExternalModule;
};

export function envelope<P>(event: string, caller: Caller, payload: P, clock: PlatformClock): WebhookEvent<P> {
	return {
		id: newId('evt'),
		version: webhookPayloadVersion,
		event,
		createdAt: String(Math.floor(clock.now() / 1000)),
		userId: caller.userId,
		companyId: caller.companyId,
		payload,
	};
}

/**
 * Sends one event: published on the event socket, and delivered to the registered application
 * when there is one (`done` settles with its delivery record, undefined without one).
 */
function send(url: string | undefined, event: WebhookEvent<unknown>, parts: ExternalAnswerParts): {firstAttempt: Promise<void>; done: Promise<DeliveryRecord | undefined>} {
	parts.publish(event);
	if (url === undefined) {
		return {firstAttempt: Promise.resolve(), done: Promise.resolve(undefined)};
	}

	return parts.dispatcher.send(url, event);
}

/**
 * The user-message event of a turn, published on the event socket, and delivered to the
 * registered application when there is one. Returns once it had its first answer.
 */
export async function announceMessage(url: string | undefined, turn: {chat: ChatRecord; userMessage: MessageRecord; caller: Caller}, parts: ExternalAnswerParts): Promise<void> {
	const {chat, userMessage, caller} = turn;
	const createdPayload: UserMessageCreatedPayload = {chatId: chat.id, assistantId: chat.assistantId, text: userMessage.text ?? ''};
	await send(url, envelope(eventTypes.userMessageCreated, caller, createdPayload, parts.clock), parts).firstAttempt;
}

/**
 * With a registered application (a webhook URL, or an event-socket stream subscribed to the
 * chosen event), it gets `user-message.created` and then `external-module.chosen`, and the answer
 * is whatever it writes. If the chosen event cannot be delivered (expired or out of retries), the
 * assistant message is closed with a note saying so, so that waiting clients do not hang.
 */
export async function externalAnswer(
	url: string | undefined,
	turn: {chat: ChatRecord; userMessage: MessageRecord; assistantMessage: MessageRecord; caller: Caller},
	parts: ExternalAnswerParts,
): Promise<void> {
	const {chat, userMessage, assistantMessage, caller} = turn;
	// Keep the events in order: the chosen event goes out once the first one has had an answer.
	await announceMessage(url, turn, parts);
	if (parts.signal.aborted) {
		return;
	}

	const module = parts.module();
	userMessage.debugInfo = {chosenModule: module.name, assistantMessageId: assistantMessage.id};
	const chosenPayload: ExternalModuleChosenPayload = {
		name: module.name,
		description: module.description,
		configuration: module.configuration,
		chatid: chat.id,
		assistantId: chat.assistantId,
		userMessage: {id: userMessage.id, text: userMessage.text ?? '', createdAt: userMessage.createdAt},
		assistantMessage: {id: assistantMessage.id, createdAt: assistantMessage.createdAt},
	};
	const record = await send(url, envelope(eventTypes.externalModuleChosen, caller, chosenPayload, parts.clock), parts).done;
	if (record && (record.state === 'expired' || record.state === 'failed') && assistantMessage.stoppedStreamingAt === null) {
		const last = record.attempts.at(-1);
		const reason = last?.status === null || last === undefined ? (last?.error ?? 'no answer') : `HTTP ${last.status}`;
		parts.chats.write(assistantMessage, `(local platform) The external module did not take the event (${reason}); no answer was written.`, true);
	}
}

/** The dispatcher of webhook deliveries, logging every attempt as a `delivery` event. */
export function webhookDispatcher(resolved: ResolvedOptions, userAgent: string, emit: (event: LocalPlatformEvent) => void): WebhookDispatcher {
	return new WebhookDispatcher({
		secret: resolved.endpointSecret,
		retryBaseMs: resolved.deliveryRetryBaseMs,
		maxRetries: 5,
		attemptTimeoutMs: resolved.deliveryTimeoutMs,
		maxRecords: resolved.limits.maxDeliveryLog,
		userAgent,
		onAttempt: (record, attempt) => {
			emit({
				type: 'delivery',
				at: attempt.at,
				eventId: record.eventId,
				event: record.event,
				url: record.url,
				attempt: attempt.attempt,
				status: attempt.status,
				...(attempt.error === undefined ? {} : {error: attempt.error}),
				state: record.state,
			});
		},
	});
}
