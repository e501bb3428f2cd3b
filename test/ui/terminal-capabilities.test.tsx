/**
 * What the terminal can do, decided in one place (source/terminal.ts): colour or not (NO_COLOR,
 * TERM=dumb, FORCE_COLOR), and a size of 0 taken as 80×24. Without colour there is no reverse
 * video, so the inspector's selected row carries `›`; serve's header wraps at a narrow width
 * rather than being cut.
 */
import {render} from 'ink-testing-library';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import type {ReceiverCounters, ReceiverEventListener} from '../../source/receiver/events.js';
import {colorEnabled, terminalColumns, terminalRows} from '../../source/terminal.js';
import {replayingSource, ServeScreen} from '../../source/ui/serve/ServeScreen.js';
import {terminalSize} from '../../source/ui/live-terminal.js';
import {cleanupsAfterEach} from '../support/cleanups.js';
import {waitFor} from '../support/wait.js';
import {stripAnsi, terminalOf as terminalColumnsOf} from './ink-terminal.js';
import {longChatId, storedEvent} from './events/memory-reader.js';
import {renderInspector} from './events/render-inspector.js';

const cleanups = cleanupsAfterEach();

/** ink-testing-library's stdout says `columns` until the test ends. */
function terminalOf(columns: number): void {
	cleanups.push(terminalColumnsOf(columns));
}

describe('the terminal\'s capabilities', () => {
	it('takes a terminal that reports 0 columns or 0 rows as 80×24', () => {
		expect(terminalColumns({columns: 0, isTTY: true})).toBe(80);
		expect(terminalRows({rows: 0, isTTY: true})).toBe(24);
		expect(terminalColumns({columns: 132, isTTY: true})).toBe(132);
		expect(terminalColumns({isTTY: false})).toBeUndefined();
		expect(terminalSize({columns: 0, rows: 0, isTTY: true})).toEqual({columns: 80, rows: 24});
	});

	it('colours a terminal unless NO_COLOR, TERM=dumb or FORCE_COLOR=0 says not; NO_COLOR wins', () => {
		const tty = {isTTY: true};
		expect(colorEnabled(tty, {TERM: 'xterm-256color'})).toBe(true);
		expect(colorEnabled(tty, {NO_COLOR: '1'})).toBe(false);
		expect(colorEnabled(tty, {NO_COLOR: ''})).toBe(true);
		expect(colorEnabled(tty, {TERM: 'dumb'})).toBe(false);
		expect(colorEnabled(tty, {TERM: 'dumb', FORCE_COLOR: '1'})).toBe(true);
		expect(colorEnabled(tty, {FORCE_COLOR: '0'})).toBe(false);
		expect(colorEnabled(tty, {NO_COLOR: '1', FORCE_COLOR: '3'})).toBe(false);
		expect(colorEnabled({isTTY: false}, {})).toBe(false);
	});
});

describe('the inspector without colour', () => {
	it('marks the selected row with › without colour (no reverse video), and moves the mark with the cursor', async () => {
		const instance = renderInspector(false, cleanups);
		await waitFor(() => (instance.lastFrame() ?? '').includes(storedEvent(2).id));
		const marked = () => stripAnsi(instance.lastFrame() ?? '').split('\n').filter(line => line.startsWith('›'));
		expect(marked()).toHaveLength(1);
		expect(marked()[0]).toContain(storedEvent(0).id);
		expect(marked()[0]).toContain(longChatId(0));
		instance.stdin.write('j');
		await waitFor(() => marked()[0]?.includes(storedEvent(1).id) === true);
		expect(marked()).toHaveLength(1);
	});

	it('draws no marker with colour, where reverse video shows the row', async () => {
		const instance = renderInspector(true, cleanups);
		await waitFor(() => (instance.lastFrame() ?? '').includes(storedEvent(2).id));
		expect(stripAnsi(instance.lastFrame() ?? '')).not.toContain('›');
	});
});


describe('serve\'s header', () => {
	it('wraps at 60 columns rather than being cut', async () => {
		terminalOf(60);
		const listeners = new Set<ReceiverEventListener>();
		const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
		const source = replayingSource({counters: () => counters, on(_type: 'event', listener: ReceiverEventListener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		}});
		const instance = render(<ServeScreen source={source} url="http://127.0.0.1:18080" secretCount={1} drainTimeoutMs={25_000} keyStatus={() => ({keyMasked: '…abcd'})} onQuit={() => undefined}/>);
		cleanups.push(() => {
			instance.unmount();
			source.dispose();
		});
		await waitFor(() => instance.frames.join('\n').includes('platform-tui serve'));
		const lines = stripAnsi(instance.frames.join('\n')).split('\n').filter(line => line.trim() !== '');
		const start = lines.findIndex(line => line.includes('platform-tui serve'));
		expect(lines.slice(start, start + 2).join(' ').replaceAll(/\s+/g, ' ')).toContain('platform-tui serve listening on http://127.0.0.1:18080 (POST /webhook · GET /health)');
		expect(lines.every(line => stringWidth(line) <= 60)).toBe(true);
	});
});
