/** listen's screen is serve's: the socket's address, no endpoint secret, and the socket's state with its gaps in the status box. */
import {render} from 'ink-testing-library';
import {afterEach, expect, it} from 'vitest';
import type {ReceiverCounters} from '../../../source/receiver/events.js';
import {socketStatusText} from '../../../source/ui/listen/format.js';
import {replayingSource, ServeScreen} from '../../../source/ui/serve/ServeScreen.js';
import {waitFor} from '../../support/wait.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
	cleanup?.();
	cleanup = undefined;
});

const flat = (frames: string[]) => frames.join('\n').replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');

it('shows the socket, its state, the gaps and the last one, and the key in use', async () => {
	const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	const source = replayingSource({counters: () => counters, on: () => () => undefined});
	const status = socketStatusText({state: 'live', streamsOpened: 4, openStreams: 1, events: 10, copiesDropped: 3, skipped: 0, gaps: 1, uncoveredMs: 5000, uncoveredNowMs: 5000, lastGap: {from: Date.parse('2026-11-28T03:00:00.000Z'), to: Date.parse('2026-11-28T03:00:05.000Z')}});
	const instance = render(
		<ServeScreen
			source={source}
			url="event socket http://127.0.0.1:4010/public/event-socket/events/stream?subscriptions=a"
			store="journal /tmp/listen"
			drainTimeoutMs={25_000}
			keyStatus={() => ({keyMasked: '…wxyz'})}
			health={() => status}
			flushIntervalMs={10}
			onQuit={() => undefined}
		/>,
	);
	cleanup = () => {
		instance.unmount();
		source.dispose();
	};
	const text = await waitFor(() => flat(instance.frames), {until: shown => shown.includes('socket live'), what: 'the status box'});
	expect(text).toContain('event socket http://127.0.0.1:4010/public/event-socket/events/stream');
	expect(text).toContain('4 streams opened · 1 gap (5000 ms uncovered) · last gap');
	expect(text).toContain('key …wxyz');
	expect(text).not.toContain('endpoint secret');
});
