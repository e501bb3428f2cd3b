/**
 * The chaos run's load: a set of events, each delivered (signed afresh on every attempt, as the
 * platform does) until a replica answers 2xx; anything else — a refused connection, a reset, a
 * 503 — is delivered again, like the platform's retries. Every attempt's outcome is counted.
 */
import {setTimeout as sleep} from 'node:timers/promises';
import {request} from 'undici';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';

export type Planned = {id: string; kind: 'chosen' | 'user'; body: ReturnType<typeof buildTestEvent>; messageId?: string};

export type DeliveryTally = {attempts: number; acked: number; refused: number; failedStatus: number; resent: number};

/** Delivers `events` to whatever `target()` names at the time, `concurrency` at once, until all are acked. */
export class Deliveries {
	readonly tally: DeliveryTally = {attempts: 0, acked: 0, refused: 0, failedStatus: 0, resent: 0};
	readonly ackedIds = new Set<string>();
	constructor(private readonly secret: string, private readonly target: () => string | undefined) {}

	/** Delivers every event in `batch` until each got a 2xx; gives up after `deadline` (ms since epoch). */
	async deliver(batch: Planned[], concurrency: number, deadline: number): Promise<void> {
		const pending = [...batch];
		const workers = Array.from({length: concurrency}, async () => {
			for (let event = pending.shift(); event !== undefined; event = pending.shift()) {
				await this.deliverOne(event, deadline);
			}
		});
		await Promise.all(workers);
	}

	/** Sends an already acked event again (a redelivery the platform makes when an ack got lost). */
	async resend(event: Planned, deadline: number): Promise<void> {
		this.tally.resent++;
		await this.deliverOne(event, deadline);
	}

	private async deliverOne(event: Planned, deadline: number): Promise<void> {
		for (let attempt = 0; attempt < 10_000; attempt++) {
			if (Date.now() > deadline) {
				throw new Error(`event ${event.id} was not acknowledged before the run's deadline`);
			}

			const url = this.target();
			if (url === undefined) {
				await sleep(20);
				continue;
			}

			this.tally.attempts++;
			const delivery = signDelivery(event.body, this.secret);
			try {
				const response = await request(`${url}/webhook`, {method: 'POST', body: delivery.body, headers: delivery.headers, headersTimeout: 30_000, bodyTimeout: 30_000});
				await response.body.dump();
				if (response.statusCode >= 200 && response.statusCode < 300) {
					this.tally.acked++;
					this.ackedIds.add(event.id);
					return;
				}

				this.tally.failedStatus++;
			} catch {
				this.tally.refused++;
			}

			await sleep(20);
		}

		throw new Error(`event ${event.id} was delivered 10 000 times without an acknowledgement`);
	}
}
