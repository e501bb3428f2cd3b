/**
 * What the serve screen's status box reads every second: the clock, the key's status, serve's
 * health and the queue's figures (Redis). Nothing is read while the editor has the terminal.
 */
import {useEffect, useState, type RefObject} from 'react';
import type {BackendStats} from '../../receiver/store/backend.js';
import type {ServeSource} from './source.js';
import type {KeyStatus} from './status-lines.js';

export type ServeHealth = {text: string; ok: boolean; next?: string};

export type ServeStatusOptions = {
	source: ServeSource;
	keyStatus: () => KeyStatus;
	health?: () => ServeHealth;
	now: () => number;
	/** Set while the editor has the terminal. */
	editing: RefObject<boolean>;
};

export function useServeStatus({source, keyStatus, health, now, editing}: ServeStatusOptions): {clockNow: number; key: KeyStatus; status: ServeHealth | undefined; queue: BackendStats['queue'] | undefined} {
	const [clockNow, setClockNow] = useState(now());
	const [key, setKey] = useState<KeyStatus>(() => keyStatus());
	const [status, setStatus] = useState(() => health?.());
	const [queue, setQueue] = useState<BackendStats['queue']>();
	useEffect(() => {
		const tick = () => {
			if (editing.current) {
				return;
			}

			setClockNow(now());
			try {
				setKey(keyStatus());
			} catch {
				// Keep the last known key status if the store cannot be read for a moment.
			}

			setStatus(health?.());

			void source.backendStats?.().then(stats => {
				setQueue(stats.queue);
			}, () => undefined);
		};

		tick();
		const ticker = setInterval(tick, 1000);
		return () => {
			clearInterval(ticker);
		};
	}, [keyStatus, health, now, source, editing]);

	return {clockNow, key, status, queue};
}
