/** `--poll-interval` and `--reply-timeout`, declared once for `upload` and `chat`. */
import {defaultPollIntervalMs, defaultReplyTimeoutMs} from '../workflow/run-upload.js';
import type {FlagSpec} from '../cli/types.js';

export const replyFlags = {
	pollInterval: {type: 'string', default: defaultPollIntervalMs / 1000, range: {kind: 'seconds', max: 3600}, description: 'Longest wait in seconds between two reply polls (and, for upload, ingestion checks); the first waits are shorter', placeholder: 'SECONDS'},
	replyTimeout: {type: 'string', default: defaultReplyTimeoutMs / 1000, range: {kind: 'seconds', max: 86_400}, description: 'Seconds to wait for each reply', placeholder: 'SECONDS'},
} satisfies Record<string, FlagSpec>;
