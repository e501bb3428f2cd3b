/** Events and handlers for the Redis suites. */
import type {RequestRecord} from '../../../source/local-platform/types.js';
import type {EventBackend, EventStatus, JobHandler, JobResult, NewEvent, StepRecord} from '../../../source/receiver/store/backend.js';

export function newEvent(id: string, overrides: Partial<NewEvent> = {}): NewEvent {
	return {
		id,
		event: 'platform.chat.external-module.chosen',
		receivedAt: new Date().toISOString(),
		body: JSON.stringify({id, event: 'platform.chat.external-module.chosen'}),
		headers: {'x-platform-event-id': id, 'x-platform-signature': 'sha256=abcdef0123456789'},
		chatId: `chat-${id}`,
		status: 'received',
		...overrides,
	};
}

export type Seen = {id: string; steps: StepRecord[]; attempts: number};

/** A handler that records two steps and reports `outcome(id)`; it notes every job it was given. */
export function recordingHandler(seen: Seen[], outcome: (id: string) => JobResult = () => ({status: 'answered'})): JobHandler {
	return async job => {
		seen.push({id: job.event.id, steps: [...job.event.steps], attempts: job.event.attempts});
		await job.recordStep({name: 'search-done', at: new Date().toISOString(), data: {documents: 1}});
		await job.recordStep({name: 'message-written', at: new Date().toISOString()});
		return outcome(job.event.id);
	};
}

/** The status of a stored event, or undefined when it is not held. */
export async function statusOf(backend: EventBackend, id: string): Promise<EventStatus | undefined> {
	return (await backend.get(id))?.status;
}

/** How many times each message was written (PATCH /messages/{id}) in these platform requests, by message id. */
export function messageWrites(requests: readonly RequestRecord[]): Map<string, number> {
	const writes = new Map<string, number>();
	for (const request of requests) {
		if (request.method === 'PATCH' && request.path.startsWith('/messages/')) {
			const id = request.path.slice('/messages/'.length);
			writes.set(id, (writes.get(id) ?? 0) + 1);
		}
	}

	return writes;
}
