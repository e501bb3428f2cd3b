import type {MessageTable} from './types.js';

/** Wording for the receiver domain's error codes (journal, backends, receiver). */
export const receiverMessages: MessageTable = {
	'backend-missing': (data: {kind?: string; reason?: string}) => ({
		message: `serve could not load its ${data.kind ?? 'event'} store (${data.reason ?? 'unknown reason'})`,
		next: data.kind === 'redis' ? 'Reinstall platform-tui, or run without --redis to keep events in the local journal.' : 'Reinstall platform-tui, or pass --redis URL to keep events in Redis.',
	}),
};
