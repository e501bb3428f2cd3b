/**
 * listen's screen is serve's: the socket's address, no endpoint secret, and the socket's state with
 * its gaps in the status box; the socket's events are rows of the log, a gap whole at 60 columns.
 */
import type {ComponentProps} from 'react';
import {render} from 'ink-testing-library';
import {expect, it} from 'vitest';
import {displayWidth} from '../../../source/format/width.js';
import type {ReceiverCounters} from '../../../source/receiver/events.js';
import {socketNotice, socketStatusText} from '../../../source/ui/listen/format.js';
import {noticeFeed, replayingSource, ServeScreen} from '../../../source/ui/serve/ServeScreen.js';
import {cleanupsAfterEach} from '../../support/cleanups.js';
import {waitFor} from '../../support/wait.js';
import {stripAnsi, terminalOf} from '../ink-terminal.js';

const cleanups = cleanupsAfterEach();

const flat = (frames: string[]) => frames.join('\n').replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');

/** The serve screen as listen shows it, nothing received yet, with `props` beside the ones every test shares; unmounted after the test. */
function listenScreen(props: Pick<ComponentProps<typeof ServeScreen>, 'url'> & Partial<ComponentProps<typeof ServeScreen>>): ReturnType<typeof render> {
	const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	const source = replayingSource({counters: () => counters, on: () => () => undefined});
	const instance = render(<ServeScreen source={source} drainTimeoutMs={25_000} keyStatus={() => ({keyMasked: '…wxyz'})} flushIntervalMs={10} onQuit={() => undefined} {...props}/>);
	cleanups.push(() => {
		instance.unmount();
		source.dispose();
	});
	return instance;
}

it('shows the socket, its state, the gaps and the last one, and the key in use', async () => {
	const status = socketStatusText({state: 'live', streamsOpened: 4, openStreams: 1, events: 10, copiesDropped: 3, skipped: 0, gaps: 1, uncoveredMs: 5000, uncoveredNowMs: 5000, lastGap: {from: Date.parse('2026-11-28T03:00:00.000Z'), to: Date.parse('2026-11-28T03:00:05.000Z')}});
	const instance = listenScreen({url: 'event socket http://127.0.0.1:4010/public/event-socket/events/stream?subscriptions=a', store: 'journal /tmp/listen', health: () => status});
	const text = await waitFor(() => flat(instance.frames), {until: shown => shown.includes('socket live'), what: 'the status box'});
	expect(text).toContain('event socket http://127.0.0.1:4010/public/event-socket/events/stream');
	expect(text).toContain('4 streams opened · 1 gap (5000 ms uncovered) · last gap');
	expect(text).toContain('key …wxyz');
	expect(text).not.toContain('endpoint secret');
});

it.each([60, 100])('writes a gap into the log at %i columns, whole and within the width, after the stream opened before it', async columns => {
	cleanups.push(terminalOf(columns));
	const notices = noticeFeed();
	const at = '2026-11-28T03:00:05.000Z';
	const gap = socketNotice({type: 'gap', at, from: '2026-11-28T03:00:00.000Z', to: at, ms: 5000, downtime: false});
	// Heard before the screen listens: kept for it.
	notices.push(socketNotice({type: 'stream-opened', at, stream: 1, open: 1}));
	const instance = listenScreen({notices, url: 'event socket http://127.0.0.1:4010/public/event-socket/events/stream', title: {command: 'platform-tui listen'}});
	notices.push(gap);
	const lines = await waitFor(() => stripAnsi(instance.frames.join('\n')).split('\n'), {until: shown => shown.some(line => line.includes('GAP')), what: 'the gap row'});
	const from = lines.findIndex(line => / {2}GAP {5}/.test(line));
	expect(lines.findIndex(line => line.includes('socket  stream 1 opened (1 stream open)'))).toBeLessThan(from);
	// The gap's row and the lines it wraps into, under its text.
	const after = lines.slice(from + 1);
	const wrapped = after.findIndex(line => !/^ {18}\S/.test(line));
	const rows = [lines[from] ?? '', ...after.slice(0, wrapped === -1 ? after.length : wrapped)];
	expect(rows.length).toBeGreaterThan(1);
	for (const row of rows) {
		expect(displayWidth(row)).toBeLessThanOrEqual(columns);
	}

	expect(rows.map(row => row.trim()).join(' ')).toBe(`${gap.time}  GAP     ${gap.text}`);
	// The header names listen, and no route: listen opens no port.
	const header = lines.join(' ').replaceAll(/\s+/g, ' ');
	expect(header).toContain('platform-tui listen listening on event socket http://127.0.0.1:4010/');
	expect(header).not.toContain('POST /webhook');
});
