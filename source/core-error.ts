/**
 * The base of every core error: a stable `code` and the `data` the CLI layer needs to word it
 * (file, content id, chat id, status, request id, …). The message is for logs and `--debug`; the
 * sentence a user reads is made by `source/commands/error-message.ts` from the code and data.
 */
export class CoreError<Code extends string = string, Data extends Record<string, unknown> = Record<string, unknown>> extends Error {
	readonly code: Code;
	readonly data: Data;

	constructor(code: Code, data: Data, message: string, options?: {cause?: unknown}) {
		super(message, options?.cause === undefined ? undefined : {cause: options.cause});
		this.name = new.target.name;
		this.code = code;
		this.data = data;
	}
}

export function isCoreError(error: unknown): error is CoreError {
	return error instanceof CoreError;
}
