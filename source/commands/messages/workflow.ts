import type {MessageTable} from './types.js';

/** Wording for the workflow domain's error codes (placeholder until that domain fills it). */
export const workflowMessages: MessageTable = {};
