/**
 * The local platform: an in-memory stand-in for the platform service over real HTTP
 * (see README.md beside this file).
 */
export {startLocalPlatform, defaultModel} from './server.js';
export {defaultLimits} from './types.js';
export type {
	CompletionRecord,
	DeliveryAttempt,
	DeliveryRecord,
	DeliveryState,
	LocalPlatform,
	LocalPlatformEvent,
	LocalPlatformLimits,
	LocalPlatformOptions,
	LocalPlatformSettings,
	RequestRecord,
} from './types.js';
export {formatDuration, parseDuration} from './duration.js';
