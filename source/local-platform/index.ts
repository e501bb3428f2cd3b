/**
 * The local platform: an in-memory stand-in for the platform service over real HTTP
 * (see README.md beside this file).
 */
export {startLocalPlatform, defaultModel} from './server.js';
export {defaultLimits} from './types.js';
export {ManualClock, systemClock} from './clock.js';
export {LocalPlatformError, type LocalPlatformErrorCode} from './errors.js';
export {eventSocketOperation, faultKinds, parseFaultRule} from './http/faults.js';
export {eventSocketPath} from './chats/event-socket.js';
export {apiOperations, type ApiOperation} from './operations.js';
export {isLoopbackHost} from './http/loopback.js';
export {answerModes, type AnswerMode} from './sparse.js';
export type {
	CompletionRecord,
	DeliveryAttempt,
	DeliveryRecord,
	DeliveryState,
	FaultKind,
	FaultRule,
	FaultSettings,
	InjectedFault,
	LocalPlatform,
	LocalPlatformEvent,
	LocalPlatformLimits,
	LocalPlatformOptions,
	LocalPlatformSettings,
	PlatformClock,
	RequestRecord,
} from './types.js';
