import type {MessageTable} from './types.js';

/** Wording for the config domain's error codes (placeholder until that domain fills it). */
export const configMessages: MessageTable = {};
