export {currentApiKey, keyProblem, maxKeyLength, type CurrentKey, type KeySource} from './current.js';
export {storeApiKey, type StoredKey} from './set.js';
export {
	KeyRotationError,
	malformedExpiryMessage,
	rotateApiKey,
	rotationFailure,
	storeFailedMessage,
	type RotateOptions,
	type RotationEvent,
	type RotationFailureKind,
	type RotationOutcome,
} from './rotate.js';
export {keyStatus, type KeyStatus, type PreviousKeyStatus} from './status.js';
export {formatAgo, formatDuration, formatLocal, formatUtc, parseIsoTimestamp, utcOffset} from './time.js';
