/** Moved to test/support/recording-server.ts; kept so existing imports keep working. */
export * from '../support/recording-server.js';
