/** The API view of a stored record: a copy of the named fields, in that order; internal fields (owner, indexes) stay out. */
export function pick<T extends object, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
	return Object.fromEntries(keys.map(key => [key, record[key]])) as Pick<T, K>;
}
