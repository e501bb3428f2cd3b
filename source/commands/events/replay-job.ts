/** The job a replay runs: the chosen-module answer (source/receiver/answer.ts) through the platform client. */
import {errorMessage, isRecord} from '../../format/value.js';
import type {PlatformClient} from '../../platform/client.js';
import {answerChosenEvent} from '../../receiver/answer.js';
import type {JobHandler} from '../../receiver/backend.js';
import {parseChosenEvent} from '../../receiver/chosen-event.js';
import {platformPort} from '../../receiver/platform-port.js';

export function replayJob(client: PlatformClient, model: string): JobHandler {
	const port = platformPort(client);
	return async ({event, signal, recordStep}) => {
		let envelope: unknown;
		try {
			envelope = JSON.parse(event.body) as unknown;
		} catch (error) {
			return {status: 'failed', error: `the stored body is not JSON: ${errorMessage(error)}`};
		}

		const parsed = parseChosenEvent(isRecord(envelope) ? envelope : {}, event.id);
		if ('missing' in parsed) {
			return {status: 'failed', error: `the event lacks ${parsed.missing.join(', ')}`};
		}

		const outcome = await answerChosenEvent({port, job: parsed.job, model, signal, steps: event.steps, recordStep});
		if (outcome.ok) {
			return {status: 'answered'};
		}

		const cleanup = outcome.cleanup.apologyWritten ? '' : `; the apology could not be written (${outcome.cleanup.errors.join('; ')})`;
		return {status: 'failed', error: `${outcome.reason}${cleanup}`};
	};
}
