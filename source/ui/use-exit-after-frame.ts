import {useApp} from 'ink';
import {useEffect} from 'react';

/** Once `done`, lets the last frame be drawn, then releases the terminal (Ink's exit). */
export function useExitAfterFrame(done: boolean): void {
	const {exit} = useApp();
	useEffect(() => {
		if (done) {
			const timer = setTimeout(() => {
				exit();
			}, 0);
			return () => {
				clearTimeout(timer);
			};
		}

		return undefined;
	}, [done, exit]);
}
