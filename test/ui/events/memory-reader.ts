/** A page reader over events held in memory, for screen tests of the inspector that need no journal. */
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import type {Reader} from '../../../source/ui/events/inspector-window.js';

/** A chat id as the platform writes them (a prefix and 24 letters and digits), the `index`-th. */
export const longChatId = (index: number) => `chat_712917707c406c0b2d9e8f${String(index).padStart(2, '0')}`;

/** The `index`-th event, a second older than the one before, with a long chat id. */
export function storedEvent(index: number): StoredEvent {
	return {
		id: `evt_c940e873a1b2c3d4e5f607${String(index).padStart(2, '0')}`,
		event: 'platform.chat.external-module.chosen',
		receivedAt: new Date(Date.parse('2025-03-01T14:05:09.000Z') - (index * 1000)).toISOString(),
		updatedAt: '2025-03-01T14:05:09.000Z',
		body: '{}',
		headers: {},
		chatId: longChatId(index),
		status: 'answered',
		durationMs: 1234,
		steps: [],
		attempts: 1,
	};
}

/** Newest first, in one page: all of `events` (given newest first). */
export const memoryReader = (events: StoredEvent[]): Reader => query => (query.direction === 'older' && query.after === undefined
	? {events: events.map((each, index) => ({key: [events.length - index, each.id], event: each})), end: true}
	: {events: [], end: true});
