import type {MessageTable} from './types.js';

/** Wording for the platform domain's error codes (placeholder until that domain fills it). */
export const platformMessages: MessageTable = {};
