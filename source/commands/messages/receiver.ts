import type {MessageTable} from './types.js';

/** Wording for the receiver domain's error codes (journal, backends, receiver). */
export const receiverMessages: MessageTable = {
	'journal-locked': (data: {directory?: string; pid?: number}) => ({
		message: `The event journal in ${data.directory ?? 'the data directory'} is used by serve (pid ${data.pid ?? 'unknown'})`,
		next: 'Stop it, use another --data-dir, or run replicas with --redis.',
	}),
	'backend-missing': (data: {kind?: string; reason?: string}) => ({
		message: `serve could not load its ${data.kind ?? 'event'} store (${data.reason ?? 'unknown reason'})`,
		next: data.kind === 'redis' ? 'Reinstall platform-tui, or run without --redis to keep events in the local journal.' : 'Reinstall platform-tui, or pass --redis URL to keep events in Redis.',
	}),
};
