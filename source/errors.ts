import {PlatformApiError, PlatformConnectionError, PlatformResponseError, PlatformTimeoutError} from './platform/errors.js';

/** An error whose message is already the one clear sentence to show the user. */
export class UserError extends Error {
	override name = 'UserError';
	readonly exitCode: number;

	constructor(message: string, options?: {exitCode?: number; cause?: unknown}) {
		super(message, options?.cause === undefined ? undefined : {cause: options.cause});
		this.exitCode = options?.exitCode ?? 1;
	}
}

/** Raised when the user cancelled (Ctrl+C, q). The CLI exits 130. */
export class CancelledError extends Error {
	override name = 'CancelledError';

	constructor(message = 'Cancelled.') {
		super(message);
	}
}

export function isAbortError(error: unknown): boolean {
	return error instanceof CancelledError
		|| (error instanceof Error && (error.name === 'AbortError' || (error as {code?: unknown}).code === 'ABORT_ERR'));
}

/** A hint that tells the user what to do about a platform failure. */
function platformHint(error: unknown): string {
	if (error instanceof PlatformApiError) {
		if (error.status === 401) {
			return ' Check the API key (`platform-tui keys show`); an expired key must be replaced with `platform-tui keys set`.';
		}

		if (error.status === 403) {
			return ' Check that the key, app id, user and company belong together.';
		}

		if (error.status === 429 || error.status >= 500) {
			return ' The platform is busy or failing; try again shortly.';
		}

		return '';
	}

	if (error instanceof PlatformConnectionError) {
		return ' Check PLATFORM_BASE_URL and that the platform is running.';
	}

	if (error instanceof PlatformTimeoutError) {
		return ' The platform is slow to answer; try again, or raise the timeout.';
	}

	return '';
}

/** The message printed for an error: one clear sentence, with a stack only in debug mode. */
export function formatError(error: unknown, debug: boolean): string {
	const base = error instanceof Error ? error.message : String(error);
	let message = base.endsWith('.') || base.endsWith('\n') || base.includes('\n') ? base : `${base}.`;
	if (error instanceof PlatformApiError || error instanceof PlatformConnectionError || error instanceof PlatformTimeoutError || error instanceof PlatformResponseError) {
		message += platformHint(error);
	}

	if (debug && error instanceof Error && error.stack) {
		message += `\n\n${error.stack}`;
		if (error.cause instanceof Error && error.cause.stack) {
			message += `\nCaused by: ${error.cause.stack}`;
		}
	}

	return message;
}
