import {setMaxListeners} from 'node:events';

/** Resolves after `ms`, or at once when `signal` aborts (it never rejects). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise(resolve => {
		if (signal.aborted) {
			resolve();
			return;
		}

		const timer = setTimeout(done, ms);
		function done(): void {
			clearTimeout(timer);
			signal.removeEventListener('abort', done);
			resolve();
		}

		signal.addEventListener('abort', done, {once: true});
	});
}

/** Lifts the listener warning on a controller whose signal many concurrent sleeps wait on. */
export function unlimitedListeners(controller: AbortController): AbortController {
	setMaxListeners(0, controller.signal);
	return controller;
}
