/**
 * The one place that turns any thrown value into what the user reads: one sentence (what failed,
 * naming the file, chat or content id) and the next step (cli-kit's message + tryMessage).
 * Core errors carry a `code` and `data`; the per-domain tables in `messages/` word them.
 */
import {MissingSettingsError} from '../config/resolve.js';
import {isCoreError} from '../core-error.js';
import {UserError} from '../errors.js';
import {errorMessage} from '../format/value.js';
import {PlatformApiError, PlatformConnectionError, PlatformError, PlatformTimeoutError} from '../platform/errors.js';
import {wordingFor} from './messages/index.js';
import {UsageError} from './validators.js';

export type ErrorText = {
	/** Stable for scripts: a core error's code, else the error's class name. */
	code: string;
	message: string;
	next?: string;
};

export type DescribeOptions = {
	/** The command has a --local flag, so the missing-settings next step may offer it. */
	offersLocal?: boolean;
};

/** Ends a sentence with a period unless it already ends a sentence or spans lines. */
function sentence(text: string): string {
	const trimmed = text.trimEnd();
	return /[.!?:]$/.test(trimmed) || trimmed.includes('\n') ? trimmed : `${trimmed}.`;
}

/** What to do about a platform failure (HTTP status, unreachable, slow). */
export function platformNext(error: PlatformError): string | undefined {
	if (error instanceof PlatformApiError) {
		if (error.status === 401) {
			return 'Check the API key (`platform-tui keys show`); an expired key must be replaced with `platform-tui keys set`.';
		}

		if (error.status === 403) {
			return 'Check that the key, app id, user and company belong together.';
		}

		if (error.status === 429 || error.status >= 500) {
			return 'The platform is busy or failing; try again shortly.';
		}

		return undefined;
	}

	if (error instanceof PlatformConnectionError) {
		return 'Check PLATFORM_BASE_URL and that the platform is running.';
	}

	if (error instanceof PlatformTimeoutError) {
		return 'The platform is slow to answer; try again, or raise the timeout.';
	}

	return undefined;
}

export function missingSettingsNext(offersLocal: boolean): string {
	return offersLocal ? 'Run \'platform-tui init\', or pass --local to try without an account.' : 'Run \'platform-tui init\' to set them up.';
}

function nameOf(error: unknown): string {
	return error instanceof Error ? error.name : 'Error';
}

/** The sentence and next step for any thrown value. */
export function describeError(error: unknown, options: DescribeOptions = {}): ErrorText {
	if (error instanceof UsageError || error instanceof UserError) {
		return {code: nameOf(error), message: sentence(error.message)};
	}

	if (isCoreError(error)) {
		const wording = wordingFor(error.code, error.data);
		if (wording) {
			return {code: error.code, message: sentence(wording.message), ...(wording.next ? {next: wording.next} : {})};
		}

		return {code: error.code, message: sentence(error.message)};
	}

	if (error instanceof MissingSettingsError) {
		return {code: nameOf(error), message: error.message, next: missingSettingsNext(options.offersLocal ?? false)};
	}

	if (error instanceof PlatformError) {
		const next = platformNext(error);
		return {code: nameOf(error), message: sentence(error.message), ...(next ? {next} : {})};
	}

	return {code: nameOf(error), message: sentence(errorMessage(error))};
}

/** The message and the next step as printed: on one line, or on the next when the message spans lines. */
export function joinText(text: Pick<ErrorText, 'message' | 'next'>): string {
	if (!text.next) {
		return text.message;
	}

	return `${text.message}${text.message.includes('\n') ? '\n' : ' '}${text.next}`;
}

/** The stack (and the cause's) for --debug. */
export function debugStack(error: unknown): string | undefined {
	if (!(error instanceof Error) || !error.stack) {
		return undefined;
	}

	const cause = error.cause instanceof Error && error.cause.stack ? `\nCaused by: ${error.cause.stack}` : '';
	return `${error.stack}${cause}`;
}

/** The full text for stderr: the sentence and next step, then the stack with --debug. */
export function formatErrorText(error: unknown, options: DescribeOptions & {debug?: boolean} = {}): string {
	const text = joinText(describeError(error, options));
	const stack = options.debug ? debugStack(error) : undefined;
	return stack ? `${text}\n\n${stack}` : text;
}
