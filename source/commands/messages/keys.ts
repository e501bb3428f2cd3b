import type {MessageTable} from './types.js';

/** Wording for the keys domain's error codes (placeholder until that domain fills it). */
export const keysMessages: MessageTable = {};
