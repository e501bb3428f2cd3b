/**
 * The inspector's reading as time passes: a search over many events goes on a scan step at a time,
 * the screen drawn between; and new events are added at the top while following, counted while paused.
 */
import {useEffect, type Dispatch, type RefObject, type SetStateAction} from 'react';
import {loadNewer, loadOlder, newerCount, wantsOlder, type Reader, type Scope, type Window} from './inspector-window.js';

export type FollowOptions = {
	read: Reader;
	window: Window;
	setWindow: Dispatch<SetStateAction<Window>>;
	scopeRef: RefObject<Scope>;
	/** The rows the list shows, and the rows a read asks for. */
	view: number;
	readRows: number;
	paused: boolean;
	setWaiting: (count: number) => void;
	pollMs: number;
};

export function useInspectorFollow({read, window, setWindow, scopeRef, view, readRows, paused, setWaiting, pollMs}: FollowOptions): void {
	useEffect(() => {
		if (!wantsOlder(window, view)) {
			return;
		}

		const timer = setTimeout(() => {
			setWindow(current => loadOlder(current, read, scopeRef.current, readRows));
		}, 0);
		return () => {
			clearTimeout(timer);
		};
	}, [window, view, read, readRows]); // eslint-disable-line react-hooks/exhaustive-deps -- the setter and the ref never change

	useEffect(() => {
		const timer = setInterval(() => {
			if (paused) {
				setWaiting(newerCount(window, read, scopeRef.current, 1000));
				return;
			}

			if (window.atNewest) {
				setWindow(current => loadNewer(current, read, scopeRef.current, 200, true));
			}
		}, pollMs);
		return () => {
			clearInterval(timer);
		};
	}, [paused, window, read, pollMs]); // eslint-disable-line react-hooks/exhaustive-deps -- the setters and the ref never change
}
