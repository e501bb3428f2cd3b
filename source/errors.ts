/** An error whose message is already the one clear sentence to show the user, with its code for --json. */
export class UserError extends Error {
	override name = 'UserError';
	readonly exitCode: number;
	/** Stable, kebab-case, one per kind of failure; listed in docs/errors.md. */
	readonly code: string;

	constructor(code: string, message: string, options?: {exitCode?: number; cause?: unknown}) {
		super(message, options?.cause === undefined ? undefined : {cause: options.cause});
		this.code = code;
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
