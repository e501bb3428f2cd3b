/**
 * The one table of names for the two event types the receiver handles: the short names `trigger`
 * takes and `events list --type` accepts (`user-message`, `external-module-chosen`), the forms
 * without the `platform.chat.` prefix, and the full event names.
 */
import {eventTypes} from '../platform/types.js';

/** The short name of each handled event type. */
export const shortEventNames = {
	'user-message': eventTypes.userMessageCreated,
	'external-module-chosen': eventTypes.externalModuleChosen,
} as const;

export type ShortEventName = keyof typeof shortEventNames;

const aliases: Record<string, string> = {
	'user-message': eventTypes.userMessageCreated,
	'user-message.created': eventTypes.userMessageCreated,
	[eventTypes.userMessageCreated]: eventTypes.userMessageCreated,
	'external-module-chosen': eventTypes.externalModuleChosen,
	'external-module.chosen': eventTypes.externalModuleChosen,
	chosen: eventTypes.externalModuleChosen,
	[eventTypes.externalModuleChosen]: eventTypes.externalModuleChosen,
};

/** The full event name a name stands for, or undefined when it names no handled type. */
export function fullEventType(name: string): string | undefined {
	return aliases[name.trim()];
}

/** The short name of a full event type, when it is a handled one. */
export function shortEventName(eventType: string): ShortEventName | undefined {
	return (Object.keys(shortEventNames) as ShortEventName[]).find(name => shortEventNames[name] === eventType);
}
