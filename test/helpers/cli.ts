/** Moved to test/support/cli.ts; re-exported while test/receiver still imports it from here. */
export * from '../support/cli.js';
