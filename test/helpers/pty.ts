/** Moved to test/support/pty.ts; re-exported while test/receiver still imports it from here. */
export * from '../support/pty.js';
