import type {MessageTable} from './types.js';

/** Wording for the receiver domain's error codes (placeholder until that domain fills it). */
export const receiverMessages: MessageTable = {};
