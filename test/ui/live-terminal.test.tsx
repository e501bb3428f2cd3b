/**
 * Narrowing the window under a live Ink screen: the terminal re-wraps the old frame's lines, and
 * the LiveTerminal erases the rows they take at the new width, so the scrollback holds what was
 * printed before and above the screen, line by line, and no copy of the old frame. A frame as tall
 * as the window never makes Ink clear the terminal.
 */
import {EventEmitter} from 'node:events';
import {Box, Static, Text} from 'ink';
import {describe, expect, it} from 'vitest';
import {erasePlan} from '../../source/ui/live-terminal.js';
import {renderApp} from '../../source/ui/render.js';
import {useTerminalSize} from '../../source/ui/use-terminal-size.js';
import {WrittenLines} from '../../source/ui/written-lines.js';
import {VirtualTerminal} from '../support/terminal.js';
import {waitFor} from '../support/wait.js';

class FakeTty extends EventEmitter {
	readonly isTTY = true;
	constructor(readonly terminal: VirtualTerminal) {
		super();
	}

	get columns(): number {
		return this.terminal.columns;
	}

	get rows(): number {
		return this.terminal.rows;
	}

	/** Everything written, as written. */
	written = '';

	write(data: string): boolean {
		this.written += data;
		this.terminal.write(data);
		return true;
	}

	/** The window is resized: the terminal re-wraps, then the program hears of it. */
	resize(columns: number, rows: number): void {
		this.terminal.resize(columns, rows);
		this.emit('resize');
	}
}

class FakeStdin extends EventEmitter {
	readonly isTTY = false;
	setEncoding() {}
	setRawMode() {}
	resume() {}
	pause() {}
	ref() {}
	unref() {}
	read() {
		return null;
	}
}

function Frame({label, lines}: {label: string; lines: number}) {
	const {columns, rows} = useTerminalSize();
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1}>
			<Text>{`${label} at ${columns ?? 0}×${rows ?? 0}`}</Text>
			{Array.from({length: lines}, (_, index) => <Text key={String(index)}>{`line ${index} ${'x'.repeat(60)}`}</Text>)}
		</Box>
	);
}

function start(columns: number, rows: number, lines: number) {
	const terminal = new VirtualTerminal(columns, rows);
	terminal.write('printed before the app started\r\n');
	const stdout = new FakeTty(terminal);
	const app = renderApp({stdout, stdin: new FakeStdin(), stderr: stdout} as never, <Frame label="live" lines={lines}/>);
	return {terminal, stdout, app};
}

describe('a live screen when the window is narrowed', () => {
	it('leaves the line printed before it and no copy of the old frame (80×24 → 60×24)', async () => {
		const {terminal, stdout, app} = start(80, 24, 4);
		await waitFor(() => terminal.text().some(line => line.includes('live at 80×24')), {what: 'the first frame'});
		expect(terminal.text()[0]).toBe('printed before the app started');
		stdout.resize(60, 24);
		await waitFor(() => terminal.text().some(line => line.includes('live at 60×24')), {what: 'the frame at 60 columns'});
		const text = terminal.text();
		expect(text[0]).toBe('printed before the app started');
		// The rest is the new frame alone: one top border, one bottom border, each line within 60 columns.
		expect(text.filter(line => line.startsWith('╭'))).toHaveLength(1);
		expect(text.filter(line => line.startsWith('╰'))).toHaveLength(1);
		expect(text.filter(line => line.includes('live at'))).toEqual(['│ live at 60×24                                            │']);
		expect(text[1]).toMatch(/^╭─+╮$/);
		expect(text).toHaveLength(1 + 2 + 1 + 4 * 2);
		expect(terminal.clears).toBe(0);
		app.unmount();
	});

	it('never clears the terminal when the old frame is as tall as the new window (80×24 → 60×15)', async () => {
		const {terminal, stdout, app} = start(80, 24, 5);
		await waitFor(() => terminal.text().some(line => line.includes('live at 80×24')), {what: 'the first frame'});
		stdout.resize(60, 15);
		await waitFor(() => terminal.text().some(line => line.includes('live at 60×15')), {what: 'the frame at 60×15'});
		expect(terminal.clears).toBe(0);
		expect(terminal.text()[0]).toBe('printed before the app started');
		// The screen holds one whole frame: the rows of the old one that fitted were erased.
		const screen = terminal.screen();
		expect(screen.filter(line => line.startsWith('╭'))).toHaveLength(1);
		expect(screen.filter(line => line.includes('live at'))).toHaveLength(1);
		app.unmount();
	});
	it('leaves no copy of the old frame when the window shrinks from 200×50 to 60×15 and grows back', async () => {
		const {terminal, stdout, app} = start(200, 50, 3);
		await waitFor(() => terminal.text().some(line => line.includes('live at 200×50')), {what: 'the first frame'});
		stdout.resize(60, 15);
		await waitFor(() => terminal.screen().some(line => line.includes('live at 60×15')), {what: 'the frame at 60×15'});
		// Re-wrapped at 60 columns the old frame is 25 rows: its top is out of reach, kept whole
		// above the new frame (no line of it is erased in part, so none is joined to the new frame).
		expect(terminal.screen().filter(line => line.startsWith('╭'))).toHaveLength(1);
		stdout.resize(200, 50);
		const text = await waitFor(() => terminal.text(), {until: text => text.some(line => line.includes('live at 200×50')), what: 'the frame at 200×50'});
		expect(text[0]).toBe('printed before the app started');
		expect(text.filter(line => line.includes('╭'))).toHaveLength(1);
		expect(text.filter(line => line.includes('╰'))).toHaveLength(1);
		expect(text.filter(line => line.includes('line 0 '))).toHaveLength(1);
		expect(text[1]).toMatch(/^╭─{198}╮$/);
		expect(text).toHaveLength(1 + 2 + 1 + 3);
		expect(terminal.clears).toBe(0);
		app.unmount();
	});
});

describe('a live screen whose frame follows the window\'s height', () => {
	/** Like the upload screen: fewer file rows in a shorter window, and one line as wide as the window. */
	function Files({tick}: {tick: number}) {
		const {rows} = useTerminalSize();
		const files = Math.min((rows ?? 24) - 2, 16) - 5;
		return (
			<Box flexDirection="column">
				<Text>{`files uploaded (frame ${tick})`}</Text>
				{Array.from({length: files}, (_, index) => <Text key={String(index)}>{`doc-${index} waiting`}</Text>)}
				<Text>Ingestion</Text>
				<Text wrap="truncate">{`Reply will ask: ${'x'.repeat(300)}`}</Text>
				<Text>q or Ctrl+C to cancel</Text>
			</Box>
		);
	}

	it('redrawn several times at 60×15, then grown back to 200×50: one frame, nothing left of the others', async () => {
		const terminal = new VirtualTerminal(200, 50);
		terminal.write('printed before the app started\r\n');
		const stdout = new FakeTty(terminal);
		const app = renderApp({stdout, stdin: new FakeStdin(), stderr: stdout} as never, <Files tick={0}/>);
		await waitFor(() => terminal.text().some(line => line.includes('doc-10 waiting')), {what: 'the frame at 200×50'});
		stdout.resize(60, 15);
		await waitFor(() => terminal.text(), {until: text => text.at(-1) === 'q or Ctrl+C to cancel' && !text.slice(-12).some(line => line.includes('doc-9 ')), what: 'the frame at 60×15'});
		// Each redraw at 60×15 replaces a frame shorter than the window's first one: blank rows stay
		// below the cursor, and the lines kept above are counted from where the cursor is.
		for (let tick = 1; tick <= 3; tick++) {
			app.rerender(<Files tick={tick}/>);
			await waitFor(() => terminal.text().some(line => line.includes(`(frame ${tick})`)), {what: `redraw ${tick}`});
		}

		stdout.resize(200, 50);
		const text = await waitFor(() => terminal.text(), {until: text => text.some(line => line.includes('doc-10 waiting')), what: 'the frame at 200×50 again'});
		expect(text[0]).toBe('printed before the app started');
		expect(text.filter(line => line.includes('files uploaded'))).toHaveLength(1);
		expect(text.filter(line => line.includes('doc-0 '))).toHaveLength(1);
		expect(text).toHaveLength(1 + 1 + 11 + 3);
		expect(terminal.clears).toBe(0);
		app.unmount();
	});
});

describe('a live screen that prints finished rows while the window is narrow', () => {
	function Log({rows}: {rows: string[]}) {
		const {columns} = useTerminalSize();
		return (
			<>
				<Static items={rows}>{row => <Text key={row} color="green">{row}</Text>}</Static>
				<Frame label="live" lines={3}/>
				<Text>{`at ${columns ?? 0} columns`}</Text>
			</>
		);
	}

	it('grown back to 200×50, leaves no copy of the old frame above the rows printed at 60×15, and prints them again whole', async () => {
		const terminal = new VirtualTerminal(200, 50);
		terminal.write('printed before the app started\r\n');
		const stdout = new FakeTty(terminal);
		const app = renderApp({stdout, stdin: new FakeStdin(), stderr: stdout} as never, <Log rows={['row 1 evt_aaaaaaaaaaaaaaaaaaaaaaaa']}/>);
		await waitFor(() => terminal.text().some(line => line.includes('live at 200×50')), {what: 'the first frame'});
		stdout.resize(60, 15);
		await waitFor(() => terminal.text().some(line => line.includes('live at 60×15')), {what: 'the frame at 60×15'});
		app.rerender(<Log rows={['row 1 evt_aaaaaaaaaaaaaaaaaaaaaaaa', 'row 2 evt_bbbbbbbbbbbbbbbbbbbbbbbb', 'row 3 evt_cccccccccccccccccccccccc']}/>);
		await waitFor(() => terminal.text().some(line => line.includes('row 3')), {what: 'the rows printed at 60 columns'});
		stdout.resize(200, 50);
		const text = await waitFor(() => terminal.text(), {until: text => text.some(line => line.includes('live at 200×50')) && text.at(-1) === 'at 200 columns', what: 'the frame at 200×50 again'});
		expect(text).toEqual([
			'printed before the app started',
			'row 1 evt_aaaaaaaaaaaaaaaaaaaaaaaa',
			'row 2 evt_bbbbbbbbbbbbbbbbbbbbbbbb',
			'row 3 evt_cccccccccccccccccccccccc',
			expect.stringMatching(/^╭─{198}╮$/),
			expect.stringContaining('live at 200×50'),
			expect.stringContaining('line 0 '),
			expect.stringContaining('line 1 '),
			expect.stringContaining('line 2 '),
			expect.stringMatching(/^╰─{198}╯$/),
			'at 200 columns',
		]);
		// Printed once at 60 columns, then again, whole, once the window had grown back.
		expect(stdout.written.split('row 2 evt_bbbbbbbbbbbbbbbbbbbbbbbb').length - 1).toBe(2);
		expect(terminal.clears).toBe(0);
		app.unmount();
	});
});

describe('erasePlan', () => {
	it('erases a block that fits, and keeps whole the lines that start above the screen', () => {
		expect(erasePlan([4, 4, 1], 15)).toEqual({kept: 0, erasedRows: 9});
		expect(erasePlan([4, 4, 4, 4, 1], undefined)).toEqual({kept: 0, erasedRows: 17});
		// 17 rows in 15: the first line starts above the screen (2 rows hidden): kept whole.
		expect(erasePlan([4, 4, 4, 4, 1], 15)).toEqual({kept: 1, erasedRows: 13});
		// 17 rows in 13: 4 hidden, the first line exactly: only it is kept.
		expect(erasePlan([4, 4, 4, 4, 1], 13)).toEqual({kept: 1, erasedRows: 13});
		expect(erasePlan([4, 4, 4, 4, 1], 12)).toEqual({kept: 2, erasedRows: 9});
		// The cursor's line is always on the screen.
		expect(erasePlan([4, 4, 1], 1)).toEqual({kept: 2, erasedRows: 1});
	});
});

describe('WrittenLines', () => {
	it('counts the rows lines take at a narrower width, after erases and rewrites', () => {
		const lines = new WrittenLines();
		lines.write('before\n');
		lines.write(`${'a'.repeat(80)}\n${'b'.repeat(30)}\n`);
		expect(lines.rowsEach(60, 3)).toEqual([2, 1, 1]);
		// Ink erases the frame (3 lines with the cursor's) and writes a shorter one.
		lines.write('\u001B[2K\u001B[1A\u001B[2K\u001B[1A\u001B[2K\u001B[G');
		lines.write(`${'c'.repeat(130)}\n`);
		expect(lines.rowsEach(60, 2)).toEqual([3, 1]);
		expect(lines.rowsEach(60, 3)).toEqual([1, 3, 1]);
	});

	it('keeps a line as written, colours included, when it was written in order', () => {
		const lines = new WrittenLines();
		lines.write('\u001B[32mrow 1\u001B[39m\nrow 2 \u001B[1mbold\u001B[22m\n');
		expect(lines.written(0, 2)).toEqual(['\u001B[32mrow 1\u001B[39m', 'row 2 \u001B[1mbold\u001B[22m']);
		// Written over, a line keeps its text only.
		lines.write('\u001B[1A\u001B[3Gxx\n');
		expect(lines.written(1, 1)).toEqual(['roxx2 bold']);
	});
});
