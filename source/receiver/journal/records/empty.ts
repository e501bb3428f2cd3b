/** The view of a data directory that holds no journal yet: nothing listed, nothing to replay. */
import type {EventBackend} from '../../store/backend.js';

export function emptyJournal(): EventBackend {
	return {
		kind: 'journal',
		accept: async () => Promise.reject(new Error('this journal view is read-only')),
		start: async () => Promise.resolve(),
		stop: async () => Promise.resolve({cutOff: 0}),
		active: () => 0,
		list: async () => Promise.resolve([]),
		get: async () => Promise.resolve(undefined),
		near: async () => Promise.resolve([]),
		replay: async () => Promise.resolve({outcome: 'unknown', near: []}),
		stats: async () => Promise.resolve({count: 0, bytes: 0}),
		close: async () => Promise.resolve(),
	};
}
