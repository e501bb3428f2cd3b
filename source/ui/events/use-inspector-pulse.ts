/** The inspector's pulse, fed each time its window of rows changes (see inspector-pulse.ts). */
import {useState} from 'react';
import {feedPulse, pulseValues, startPulse, type Pulse} from './inspector-pulse.js';
import type {Window} from './inspector-window.js';

/** Events per whole minute up to `now`, oldest first, of the rows read for `scope` (a new scope starts again). */
export function useInspectorPulse(window: Window, scope: unknown, now: number): number[] {
	const [fed, setFed] = useState<{pulse: Pulse; window?: Window}>(() => ({pulse: startPulse(scope)}));
	let {pulse} = fed;
	// A new window is counted during the render that shows it (React's way to follow a changed prop).
	if (fed.window !== window) {
		pulse = feedPulse(pulse, window, scope);
		setFed({pulse, window});
	}

	return pulseValues(pulse, now);
}
