import {CoreError} from '../core-error.js';

/**
 * Why the local platform could not start or refused an option. The CLI words each code
 * (source/commands/messages/local.ts); the message here is for logs.
 */
export type LocalPlatformErrorCode =
	| 'local-host-not-loopback'
	| 'local-port-invalid'
	| 'local-port-in-use'
	| 'local-url-invalid'
	| 'local-url-not-loopback'
	| 'local-option-invalid'
	| 'local-fault-invalid'
	| 'local-listen-failed';

export class LocalPlatformError extends CoreError<LocalPlatformErrorCode> {}

/** An option outside its range: `option` is the option's name, `expected` what it must be. */
export function invalidOption(option: string, value: unknown, expected: string): LocalPlatformError {
	return new LocalPlatformError('local-option-invalid', {option, value, expected}, `${option} must be ${expected}, got ${String(value)}`);
}
