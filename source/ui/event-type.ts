/** An event type as the screens show it: without the `platform.chat.` every chat event starts with. */
export function shortType(eventType: string): string {
	return eventType.replace(/^platform\.chat\./, '');
}
