/**
 * What a test undoes when it ends (an unmounted screen, a terminal width put back): pushed while it
 * runs, run in the order pushed after each test of the file, or of the describe block it is called in.
 */
import {afterEach} from 'vitest';

export function cleanupsAfterEach(): Array<() => void> {
	const cleanups: Array<() => void> = [];
	afterEach(() => {
		for (const cleanup of cleanups.splice(0)) {
			cleanup();
		}
	});
	return cleanups;
}
