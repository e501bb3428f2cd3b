/** The value, or a failed test naming what was missing (instead of a non-null assertion). */
export function defined<T>(value: T | null | undefined, what = 'a value'): T {
	if (value === null || value === undefined) {
		throw new Error(`Expected ${what}, got ${String(value)}`);
	}

	return value;
}
