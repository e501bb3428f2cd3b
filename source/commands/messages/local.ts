import type {MessageTable} from './types.js';

/** Wording for the local domain's error codes (placeholder until that domain fills it). */
export const localMessages: MessageTable = {};
