/**
 * What a test undoes when it ends: pushed while it runs, run after each test of the file, or of the
 * describe block it is called in. `cleanupsAfterEach`: synchronous steps (an unmounted screen, a
 * terminal width put back), in the order pushed. `closersAfterEach`: asynchronous ones (a server,
 * a backend, a client), newest first, each awaited before the next, as things opened in turn close.
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

export function closersAfterEach(): Array<() => Promise<void>> {
	const closers: Array<() => Promise<void>> = [];
	afterEach(async () => {
		for (const close of closers.splice(0).reverse()) {
			await close();
		}
	});
	return closers;
}
