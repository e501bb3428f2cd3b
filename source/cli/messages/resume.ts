/** How the CLI words the way on after an upload stopped once its chat was known (workflow's UploadStoppedError). */

/** The sentence that tells where the files went and how to go on. */
export function resumeAdvice(chatId: string, command: string): string {
	return `Chat ${chatId} keeps every file sent so far; continue with: ${command}`;
}
