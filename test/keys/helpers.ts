/** Every full key given must be absent from every text given. */
export function leakedKeys(texts: readonly string[], keys: readonly string[]): string[] {
	return keys.filter(key => texts.some(text => text.includes(key)));
}
