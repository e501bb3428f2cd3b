import {setMaxListeners} from 'node:events';

export {abortableSleep} from '../platform/clock.js';

/** Lifts the listener warning on a controller whose signal many concurrent sleeps wait on. */
export function unlimitedListeners(controller: AbortController): AbortController {
	setMaxListeners(0, controller.signal);
	return controller;
}
