/**
 * The one place that turns any thrown value into what the user reads: one sentence (what failed,
 * naming the file, chat or content id) and the next step (cli-kit's message + tryMessage).
 * Core errors carry a `code` and `data`; the per-domain tables in `messages/` word them (the
 * platform's HTTP, connection and timeout hints live in `messages/platform.ts`).
 */
import {MissingSettingsError, type ResolvedConfig} from '../config/resolve.js';
import {isCoreError} from '../core-error.js';
import {UserError} from '../errors.js';
import {errorMessage} from '../format/value.js';
import {wordingFor} from './messages/wording.js';
import type {SettingSources} from './messages/setting-source.js';
import {UploadStoppedError} from '../workflow/errors.js';
import {resumeAdvice} from './messages/resume.js';
import {UsageError} from './validators.js';

export type ErrorText = {
	/** Stable for scripts, kebab-case: the error's code (docs/errors.md lists every one). */
	code: string;
	message: string;
	next?: string;
	/** An upload that stopped after its chat was known: the chat, and the command that continues it. */
	chatId?: string;
	resume?: string;
};

export type DescribeOptions = {
	/** The command has a --local flag, so the missing-settings next step may offer it. */
	offersLocal?: boolean;
	/** Where each setting came from (settingSources), so advice names the flag, variable or stored setting that gave it. */
	sources?: SettingSources;
};

/**
 * Where each setting came from for this run (flag > env > stored > default), from the run's own
 * settings (cli/deps.ts: its one read of the config file); none when the config cannot be read.
 */
export function settingSources(run: {resolved(): ResolvedConfig}): SettingSources {
	try {
		return Object.fromEntries(Object.entries(run.resolved()).map(([name, setting]) => [name, setting.source]));
	} catch {
		return {};
	}
}

/** Ends a sentence with a period unless it already ends a sentence or spans lines. */
function sentence(text: string): string {
	const trimmed = text.trimEnd();
	return /[.!?:]$/.test(trimmed) || trimmed.includes('\n') ? trimmed : `${trimmed}.`;
}

export function missingSettingsNext(offersLocal: boolean): string {
	return offersLocal ? 'Run \'platform-tui init\', or pass --local to try without an account.' : 'Run \'platform-tui init\' to set them up.';
}

/** The code of a failure nothing above foresaw (a bug, or a system error no domain words). */
export const unexpectedErrorCode = 'unexpected-error';

/** The sentence and next step for any thrown value. */
export function describeError(error: unknown, options: DescribeOptions = {}): ErrorText {
	if (error instanceof UploadStoppedError) {
		const inner = describeError(error.cause, options);
		// "Run the same command again" would start a second chat: the command that continues this one follows.
		const advice = resumeAdvice(error.chatId, error.command);
		return {code: inner.code, message: inner.message, next: inner.next ? `${sentence(inner.next)} ${advice}` : advice, chatId: error.chatId, resume: error.command};
	}

	if (error instanceof UsageError || error instanceof UserError) {
		return {code: error.code, message: sentence(error.message)};
	}

	if (isCoreError(error)) {
		const data = options.sources === undefined ? error.data : {...error.data, sources: options.sources};
		const wording = wordingFor(error.code, data) ?? {message: error.message};
		// The domain words what is missing; the next step depends on the command (does it offer --local?).
		const next = wording.next ?? (error instanceof MissingSettingsError ? missingSettingsNext(options.offersLocal ?? false) : undefined);
		return {code: error.code, message: sentence(wording.message), ...(next ? {next} : {})};
	}

	return {code: unexpectedErrorCode, message: sentence(errorMessage(error))};
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
