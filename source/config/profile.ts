/**
 * The name of the settings profile a run uses, recorded in each upload manifest so `chats` can say
 * which profile synced a chat. One profile exists for now: every run is `default`.
 */
export const defaultProfileName = 'default';

/** The profile this run's settings come from (the one place a profile's name is decided). */
export function activeProfileName(): string {
	return defaultProfileName;
}
