import {errorMessage} from '../../format/value.js';
import {Agent, request} from 'undici';
import {signWebhookBody, webhookHeaders, webhookPayloadVersion} from '../../platform/webhook-signature.js';
import type {WebhookEvent} from '../../platform/types.js';
import {assertLoopbackUrl} from '../http/loopback.js';
import {abortableSleep, unlimitedListeners} from '../timers.js';

export type DeliveryAttempt = {
	attempt: number;
	/** When the attempt was sent (ISO). */
	at: string;
	/** HTTP status of the answer, null when there was no answer (refused, reset, timed out). */
	status: number | null;
	error?: string;
	/** The X-Platform-Created-At header sent with this attempt (unix seconds). */
	createdAtHeader: string;
	signature: string;
};

/**
 * pending: being delivered or waiting to retry; delivered: a 2xx arrived; expired: a status that
 * is not retried (4xx other than 429, 1xx); failed: still no success after the last retry;
 * cancelled: the platform closed before the delivery finished.
 */
export type DeliveryState = 'pending' | 'delivered' | 'expired' | 'failed' | 'cancelled';

export type DeliveryRecord = {
	eventId: string;
	event: string;
	url: string;
	userId: string;
	companyId: string;
	/** The exact body sent (and signed) on every attempt. */
	body: string;
	state: DeliveryState;
	attempts: DeliveryAttempt[];
	createdAt: string;
	finishedAt?: string;
};

export type DeliveryOptions = {
	secret: string;
	/** Delay before retry n is retryBaseMs × 2^(n-1). */
	retryBaseMs: number;
	/** Retries after the first attempt (the wire page: up to five). */
	maxRetries: number;
	/** Per-attempt timeout; a timeout counts as no answer. */
	attemptTimeoutMs: number;
	/** Most records kept; the oldest finished ones are dropped beyond it. */
	maxRecords: number;
	userAgent: string;
	onAttempt?: (record: DeliveryRecord, attempt: DeliveryAttempt) => void;
};

function isRetryable(status: number): boolean {
	return (status >= 300 && status < 400) || status === 429 || status >= 500;
}

/**
 * Delivers webhook events as the wire page describes: POST of the JSON envelope with the
 * X-Platform-* headers, a lowercase hex HMAC-SHA256 of the exact body, and X-Platform-Created-At
 * taken (and the body re-signed) at each attempt. 3xx, 429, 5xx and no answer are retried with
 * exponential backoff up to `maxRetries` times; any other non-2xx status expires the delivery.
 * Redirects are not followed. Only loopback URLs are contacted.
 */
export class WebhookDispatcher {
	readonly records: DeliveryRecord[] = [];
	private readonly agent = new Agent({connections: 16});
	/** Every pending sleep listens on this signal (and removes itself when done), so the count is unbounded by design. */
	private readonly stop = unlimitedListeners(new AbortController());
	private readonly running = new Set<Promise<unknown>>();

	constructor(private readonly options: DeliveryOptions) {}

	/** Starts delivering; `done` settles with the final record, `firstAttempt` after the first answer (or none). */
	send(url: string, event: WebhookEvent<unknown>): {record: DeliveryRecord; firstAttempt: Promise<void>; done: Promise<DeliveryRecord>} {
		assertLoopbackUrl(url, 'webhookUrl');
		const record: DeliveryRecord = {
			eventId: event.id,
			event: event.event,
			url,
			userId: event.userId,
			companyId: event.companyId,
			body: JSON.stringify(event),
			state: 'pending',
			attempts: [],
			createdAt: new Date().toISOString(),
		};
		this.remember(record);

		let firstAttemptDone: () => void = () => {};
		const firstAttempt = new Promise<void>(resolve => {
			firstAttemptDone = resolve;
		});
		const done = this.run(record, firstAttemptDone).finally(() => {
			firstAttemptDone();
			this.running.delete(done);
		});
		this.running.add(done);
		return {record, firstAttempt, done};
	}

	/** Cancels pending retries and closes the connections. */
	async close(): Promise<void> {
		this.stop.abort();
		await Promise.allSettled([...this.running]);
		await this.agent.destroy();
	}

	private remember(record: DeliveryRecord): void {
		this.records.push(record);
		while (this.records.length > this.options.maxRecords) {
			const index = this.records.findIndex(entry => entry.state !== 'pending');
			this.records.splice(index === -1 ? 0 : index, 1);
		}
	}

	private async run(record: DeliveryRecord, firstAttemptDone: () => void): Promise<DeliveryRecord> {
		const {secret, retryBaseMs, maxRetries, attemptTimeoutMs, userAgent} = this.options;
		for (let attemptNumber = 1; attemptNumber <= maxRetries + 1; attemptNumber++) {
			if (attemptNumber > 1) {
				 
				await abortableSleep(retryBaseMs * (2 ** (attemptNumber - 2)), this.stop.signal);
			}

			if (this.stop.signal.aborted) {
				break;
			}

			const createdAtHeader = String(Math.floor(Date.now() / 1000));
			const signature = signWebhookBody(record.body, secret);
			const attempt: DeliveryAttempt = {attempt: attemptNumber, at: new Date().toISOString(), status: null, createdAtHeader, signature};
			try {
				 
				const response = await request(record.url, {
					method: 'POST',
					dispatcher: this.agent,
					signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(attemptTimeoutMs)]),
					headers: {
						'content-type': 'application/json',
						'user-agent': userAgent,
						[webhookHeaders.id]: record.eventId,
						[webhookHeaders.signature]: signature,
						[webhookHeaders.version]: webhookPayloadVersion,
						[webhookHeaders.createdAt]: createdAtHeader,
						[webhookHeaders.userId]: record.userId,
						[webhookHeaders.companyId]: record.companyId,
					},
					body: record.body,
				});
				attempt.status = response.statusCode;
				 
				await response.body.dump({limit: 64 * 1024}).catch(() => undefined);
			} catch (error) {
				attempt.error = errorMessage(error);
			}

			record.attempts.push(attempt);
			if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300) {
				record.state = 'delivered';
			} else if (attempt.status !== null && !isRetryable(attempt.status)) {
				record.state = 'expired';
			} else if (attemptNumber === maxRetries + 1) {
				record.state = 'failed';
			}

			if (record.state !== 'pending') {
				record.finishedAt = new Date().toISOString();
			}

			this.options.onAttempt?.(record, attempt);
			firstAttemptDone();
			if (record.state !== 'pending') {
				break;
			}
		}

		if (record.state === 'pending') {
			record.state = 'cancelled';
			record.finishedAt = new Date().toISOString();
		}

		return record;
	}
}
