export {currentApiKey, keyProblem, maxKeyLength, type CurrentKey, type KeySource} from './current.js';
export {storeApiKey, type StoredKey} from './set.js';
export {KeyInvalidError, KeyRotationError, type RotationErrorCode, type RotationErrorData, type RotationFailureKind} from './errors.js';
export {rotateApiKey, rotateApiKeyIfOlder, rotationFailure, type RotateOptions, type RotationEvent, type RotationOutcome, type RotationSkipped} from './rotate.js';
export {keyAge, keyMaxAgeMs, rotationDueAt, storedKeySetAt, type KeyAge} from './age.js';
export {apiKeyOf, withApiKey, writeEnvFileKey} from './env-file.js';
export {keyStatus, type KeyStatus, type PreviousKeyStatus} from './status.js';
export {formatLocal, formatUtc, formatUtcAndLocal, parseIsoTimestamp, utcOffset} from './time.js';
