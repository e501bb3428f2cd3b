export {currentApiKey, keyProblem, maxKeyLength, type CurrentKey, type KeySource} from './current.js';
export {storeApiKey, type StoredKey} from './set.js';
export {KeyInvalidError, KeyRotationError, type RotationErrorCode, type RotationErrorData, type RotationFailureKind} from './errors.js';
export {rotateApiKey, rotationFailure, type RotateOptions, type RotationEvent, type RotationOutcome} from './rotate.js';
export {keyStatus, type KeyStatus, type PreviousKeyStatus} from './status.js';
export {formatLocal, formatUtc, formatUtcAndLocal, parseIsoTimestamp, utcOffset} from './time.js';
