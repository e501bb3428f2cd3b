/**
 * The upload's throughput: bytes sent per second, counted as the progress events report them, drawn
 * under the totals while the transfer runs (a sparkline with colour, figures without), within 40
 * and 120 columns, and gone once the transfer ended.
 */
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {displayWidth} from '../../../source/format/width.js';
import {UploadApp} from '../../../source/ui/upload/app.js';
import {initialUploadState, reduceUpload, UploadViewModel} from '../../../source/ui/upload/state.js';
import {throughputLine, throughputValues} from '../../../source/ui/upload/throughput.js';
import {ThroughputLine} from '../../../source/ui/upload/ThroughputLine.js';
import type {UploadEvent} from '../../../source/workflow/events.js';
import {stripAnsi, terminalOf} from '../ink-terminal.js';
import {cleanupsAfterEach} from '../../support/cleanups.js';
import {waitFor} from '../../support/wait.js';

const start = 1_700_000_000_000;
const mib = 1024 * 1024;
const listed: UploadEvent = {type: 'files-listed', folder: 'docs', files: [{name: 'manual.pdf', size: 8 * mib, mimeType: 'application/pdf'}], totalBytes: 8 * mib, skipped: []};
const progress = (sentBytes: number): UploadEvent => ({type: 'file-progress', name: 'manual.pdf', contentId: 'cont_pdf', sentBytes, totalBytes: 8 * mib});

/** The file started at `start`; 1 MiB in its first second, 3 MiB in the second, then 1 MiB. */
function transfer() {
	let state = initialUploadState(start);
	const at = (ms: number, event: UploadEvent) => {
		state = reduceUpload(state, event, start + ms);
	};

	at(0, listed);
	at(0, {type: 'file-upserted', name: 'manual.pdf', contentId: 'cont_pdf'});
	at(500, progress(mib));
	at(1200, progress(2 * mib));
	at(1900, progress(4 * mib));
	at(2500, progress(5 * mib));
	return state;
}

describe('counting the bytes sent', () => {
	it('counts the bytes of each second and keeps the total', () => {
		const state = transfer();
		expect(state.sentBytes).toBe(5 * mib);
		// Whole seconds only: at 3.2 s, the third second (2–3 s) is the last drawn.
		expect(throughputValues(state, start + 3200)).toEqual([mib, 3 * mib, mib]);
		expect(throughputLine(state, start + 3200, 80, false)).toBe('throughput 1.00 MiB/s (peak 3.00 MiB/s)');
		expect(throughputLine(state, start + 3200, 80, true)).toMatch(/^throughput ▄█▄ 1\.00 MiB\/s \(peak 3\.00 MiB\/s\)$/);
	});

	it('fits narrow lines: the peak goes first, then the picture', () => {
		const state = transfer();
		for (const width of [10, 20, 30, 40, 120]) {
			expect(displayWidth(throughputLine(state, start + 3200, width, true))).toBeLessThanOrEqual(width);
		}

		expect(throughputLine(state, start + 3200, 30, true)).toBe('throughput ▄█▄ 1.00 MiB/s');
		expect(throughputLine(state, start + 3200, 25, true)).toBe('throughput 1.00 MiB/s');
	});
});

describe('the throughput on the upload screen', () => {
	const cleanups = cleanupsAfterEach();

	for (const columns of [40, 120]) {
		it(`draws it under the totals at ${columns} columns while the transfer runs`, async () => {
			cleanups.push(terminalOf(columns));
			let now = start;
			const model = new UploadViewModel(() => now, 'Why?');
			const app = render(<UploadApp model={model} maxUpdatesPerSecond={1000} onCancel={() => undefined}/>);
			cleanups.push(() => {
				app.unmount();
			});
			model.apply(listed);
			model.apply({type: 'file-upserted', name: 'manual.pdf', contentId: 'cont_pdf'});
			now = start + 500;
			model.apply(progress(mib));
			now = start + 1500;
			model.apply(progress(3 * mib));
			const frame = await waitFor(() => stripAnsi(app.lastFrame() ?? ''), {until: text => text.includes('throughput')});
			const lines = frame.split('\n');
			expect(lines.findIndex(line => line.startsWith('throughput'))).toBe(lines.findIndex(line => line.includes('files uploaded')) + 1);
			for (const line of lines) {
				expect(displayWidth(line)).toBeLessThanOrEqual(columns);
			}

			now = start + 2000;
			model.apply({type: 'file-uploaded', name: 'manual.pdf', contentId: 'cont_pdf', bytes: 8 * mib, durationMs: 2000});
			model.apply({type: 'upload-complete', files: 1, failed: 0, bytes: 8 * mib, durationMs: 2000, bytesPerSecond: 4 * mib});
			await waitFor(() => stripAnsi(app.lastFrame() ?? ''), {until: text => !text.includes('throughput')});
		});
	}

	it('says the figures without colour, a sparkline with', () => {
		const state = transfer();
		const plain = render(<ThroughputLine state={state} now={start + 3200} pictures={false}/>);
		const drawn = render(<ThroughputLine state={state} now={start + 3200} pictures/>);
		cleanups.push(() => {
			plain.unmount();
			drawn.unmount();
		});
		expect(stripAnsi(plain.lastFrame() ?? '')).toBe('throughput 1.00 MiB/s (peak 3.00 MiB/s)');
		expect(stripAnsi(drawn.lastFrame() ?? '')).toMatch(/^throughput ▄█▄+ 1\.00 MiB\/s/);
	});
});
