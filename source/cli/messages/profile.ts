import {defaultProfile} from '../../config/profiles.js';

/** ` (profile NAME)` after a sentence about the config file, when the profile is not `default`; else nothing. */
export function inProfile(name: string): string {
	return name === defaultProfile ? '' : ` (profile ${name})`;
}
