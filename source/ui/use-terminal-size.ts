import {useStdout} from 'ink';
import {useSyncExternalStore} from 'react';
import {terminalSize} from './live-terminal.js';

type Size = {columns: number | undefined; rows: number | undefined};
type Stream = NodeJS.EventEmitter & {columns?: number; rows?: number};

/** One 'resize' listener per stream, however many components follow its size. */
type Hub = {size: Size; listeners: Set<() => void>; detach?: () => void};
const hubs = new WeakMap<Stream, Hub>();

function hubOf(stream: Stream): Hub {
	let hub = hubs.get(stream);
	if (!hub) {
		hub = {size: terminalSize(stream), listeners: new Set()};
		hubs.set(stream, hub);
	}

	return hub;
}

function subscribe(stream: Stream, listener: () => void): () => void {
	const hub = hubOf(stream);
	hub.listeners.add(listener);
	if (!hub.detach) {
		hub.size = sameSize(hub.size, terminalSize(stream));
		const onResize = () => {
			const next = terminalSize(stream);
			if (next.columns !== hub.size.columns || next.rows !== hub.size.rows) {
				hub.size = next;
				for (const notify of hub.listeners) {
					notify();
				}
			}
		};

		stream.on('resize', onResize);
		hub.detach = () => {
			stream.off('resize', onResize);
		};
	}

	return () => {
		hub.listeners.delete(listener);
		if (hub.listeners.size === 0) {
			hub.detach?.();
			delete hub.detach;
		}
	};
}

/**
 * The terminal's columns and rows, following resizes (undefined: not a terminal). Every component
 * of a stream shares one 'resize' listener on it.
 */
export function useTerminalSize(): Size {
	const {stdout} = useStdout();
	const stream = stdout as Stream;
	return useSyncExternalStore(listener => subscribe(stream, listener), () => {
		const hub = hubOf(stream);
		if (!hub.detach) {
			// Not subscribed yet (first render): read the size as it is now.
			hub.size = sameSize(hub.size, terminalSize(stream));
		}

		return hub.size;
	});
}

function sameSize(previous: Size, next: Size): Size {
	return previous.columns === next.columns && previous.rows === next.rows ? previous : next;
}
