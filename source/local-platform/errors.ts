import {CoreError} from '../core-error.js';

/**
 * Why the local platform could not start or refused an option. The CLI words each code
 * (source/commands/messages/local.ts); the message here is for logs.
 */
export type LocalPlatformErrorCode =
	| 'LOCAL_HOST_NOT_LOOPBACK'
	| 'LOCAL_PORT_INVALID'
	| 'LOCAL_PORT_IN_USE'
	| 'LOCAL_URL_INVALID'
	| 'LOCAL_URL_NOT_LOOPBACK'
	| 'LOCAL_OPTION_INVALID'
	| 'LOCAL_FAULT_INVALID'
	| 'LOCAL_LISTEN_FAILED';

export class LocalPlatformError extends CoreError<LocalPlatformErrorCode> {}

/** An option outside its range: `option` is the option's name, `expected` what it must be. */
export function invalidOption(option: string, value: unknown, expected: string): LocalPlatformError {
	return new LocalPlatformError('LOCAL_OPTION_INVALID', {option, value, expected}, `${option} must be ${expected}, got ${String(value)}`);
}
