/** `dataDir` → `data-dir`: how a flag's declared name is written on the command line. */
export function kebab(name: string): string {
	return name.replace(/[A-Z]/g, letter => `-${letter.toLowerCase()}`);
}
