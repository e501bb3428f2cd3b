import type {BackendStats, ReplayResult, StoredEvent} from '../../receiver/store/backend.js';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from '../../receiver/events.js';
import {heldFeed} from './held-feed.js';

/** What the screen needs from the receiver; the optional members power details, replay and the cluster figures. */
export type ServeSource = {
	on(type: 'event', listener: ReceiverEventListener): () => void;
	counters(): ReceiverCounters;
	event?: (id: string) => Promise<StoredEvent | undefined>;
	replay?: (id: string) => Promise<ReplayResult>;
	/** Opens the event's body in the editor, stores the edited copy as a new event and processes it; resolves to a sentence. */
	edit?: (id: string, stored?: (copyId: string) => void) => Promise<string>;
	backendStats?: () => Promise<BackendStats>;
};

/**
 * Wraps a source so no event is lost between the first render and the screen's subscription
 * (effects run after the first commit): events are buffered (up to 10 000) until a listener
 * attaches, then replayed to it.
 */
export function replayingSource(source: ServeSource): ServeSource & {dispose(): void} {
	const feed = heldFeed<ReceiverEvent>(10_000);
	const dispose = source.on('event', event => {
		feed.push(event);
	});
	return {
		counters: () => source.counters(),
		...(source.event ? {event: source.event.bind(source)} : {}),
		...(source.replay ? {replay: source.replay.bind(source)} : {}),
		...(source.edit ? {edit: source.edit.bind(source)} : {}),
		...(source.backendStats ? {backendStats: source.backendStats.bind(source)} : {}),
		on(_type, listener) {
			return feed.on(listener);
		},
		dispose,
	};
}
