import {useEffect} from 'react';

/** Ticks `setNowMs` every `tickMs` until `untilMs` has passed; nothing while `untilMs` is undefined. */
export function useCountdown(untilMs: number | undefined, now: () => Date, tickMs: number, setNowMs: (ms: number) => void): void {
	useEffect(() => {
		if (untilMs === undefined) {
			return;
		}

		const timer = setInterval(() => {
			const current = now().getTime();
			setNowMs(current);
			if (current >= untilMs) {
				clearInterval(timer);
			}
		}, tickMs);
		return () => {
			clearInterval(timer);
		};
	}, [untilMs, now, tickMs, setNowMs]);
}
