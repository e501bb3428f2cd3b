/** Narrowing helpers for unknown values. */

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message of anything thrown: an Error's message, else its string form. */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) {
		return error.message;
	}

	if (typeof error === 'string') {
		return error;
	}

	// JSON.stringify answers undefined for undefined, functions and symbols.
	const json = JSON.stringify(error) as string | undefined;
	return json ?? String(error);
}

/** The `code` property of a thrown value (Node's system errors, our core errors), if any. */
export function errorCode(error: unknown): string | undefined {
	const code = isRecord(error) || error instanceof Error ? (error as {code?: unknown}).code : undefined;
	return typeof code === 'string' ? code : undefined;
}
