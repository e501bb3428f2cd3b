/**
 * The ServeScreen tests' setup: a fake receiver to emit events from, a screen mounted on it (and
 * unmounted after each test), an accepted event's fields and the screen's text with wrapping undone.
 */
import {render} from 'ink-testing-library';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from '../../../source/receiver/events.js';
import {replayingSource, ServeScreen, type KeyStatus, type ServeSource} from '../../../source/ui/serve/ServeScreen.js';
import {cleanupsAfterEach} from '../../support/cleanups.js';

function fakeSource() {
	const listeners = new Set<ReceiverEventListener>();
	const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	return {
		counters: () => ({...counters}),
		state: counters,
		on(_type: 'event', listener: ReceiverEventListener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		emit(event: ReceiverEvent) {
			for (const listener of listeners) {
				listener(event);
			}
		},
		get listenerCount() {
			return listeners.size;
		},
	};
}

export const at = '2025-01-01T10:00:00.000Z';
export const arrowUp = '\u001B[A';
export const accepted = (fields: Partial<Extract<ReceiverEvent, {type: 'accepted'}>>): ReceiverEvent => ({
	type: 'accepted',
	at,
	request: 1,
	remoteAddress: '127.0.0.1',
	status: 200,
	eventType: 'platform.chat.external-module.chosen',
	handling: 'queued',
	secretIndex: 0,
	...fields,
});

/** Joins wrapped lines and collapses white space, so assertions do not depend on the width. */
export const flat = (text: string | undefined) => (text ?? '').replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');

/** `mount` for a describe block: each screen it mounts is unmounted after its test. */
export function screenMounter() {
	const cleanups = cleanupsAfterEach();

	return function mount(options: {key?: KeyStatus; now?: number; extras?: Partial<ServeSource>; health?: {text: string; ok: boolean; next?: string}} = {}) {
		const source = fakeSource();
		// Events emitted right after the first render (before the screen subscribed) are replayed.
		const replaying = replayingSource({...source, on: source.on.bind(source), counters: source.counters, ...options.extras});
		const quits: boolean[] = [];
		const key = options.key ?? {keyMasked: '…abcd'};
		const instance = render(
			<ServeScreen
				source={replaying}
				url="http://127.0.0.1:8080"
				secretCount={2}
				drainTimeoutMs={25_000}
				keyStatus={() => key}
				{...(options.health ? {health: () => options.health ?? {text: '', ok: true}} : {})}
				flushIntervalMs={10}
				now={() => options.now ?? Date.parse(at)}
				onQuit={force => {
					quits.push(force);
				}}
			/>,
		);
		cleanups.push(() => {
			instance.unmount();
			replaying.dispose();
		});

		return {source, instance, quits: () => quits};
	};
}
