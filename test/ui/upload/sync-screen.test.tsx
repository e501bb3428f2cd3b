/**
 * The upload screen of a sync: the existing chat, the plan with the unchanged files, the
 * `unchanged` count on the totals line, and the transfer's bytes per second and ETA (from a clock
 * the test moves by hand).
 */
import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import {UploadApp} from '../../../source/ui/upload/app.js';
import {transferRate} from '../../../source/ui/upload/state.js';
import {countFiles, UploadViewModel} from '../../../source/ui/upload/state.js';
import type {UploadEvent} from '../../../source/workflow/events.js';
import {waitFor} from '../../support/wait.js';

const instances: Array<{unmount: () => void}> = [];

afterEach(() => {
	for (const instance of instances.splice(0)) {
		instance.unmount();
	}
});

const kib = 1024;
const listed: UploadEvent = {
	type: 'files-listed',
	folder: 'docs',
	files: ['a.txt', 'b.txt', 'c.txt', 'd.txt'].map(name => ({name, size: 64 * kib, mimeType: 'text/plain'})),
	totalBytes: 256 * kib,
	skipped: [],
};
const planned: UploadEvent = {
	type: 'sync-planned',
	dryRun: false,
	chatId: 'chat_1',
	manifest: '/data/sync/host-1/chat_1.json',
	upload: [{name: 'a.txt', size: 64 * kib}],
	replace: [{name: 'b.txt', size: 64 * kib}],
	awaiting: [],
	unchanged: [{name: 'c.txt', size: 64 * kib, contentId: 'cont_c'}, {name: 'd.txt', size: 64 * kib, contentId: 'cont_d'}],
};

describe('the upload screen of a sync', () => {
	it('counts the unchanged files apart and measures the rate and the time left', () => {
		let now = 1_000_000;
		const model = new UploadViewModel(() => now, 'Why?');
		for (const event of [listed, {type: 'chat-checked', chatId: 'chat_1', messages: 4, durationMs: 5} as UploadEvent, planned]) {
			model.apply(event);
		}

		expect(model.state.totalBytes).toBe(128 * kib);
		expect(countFiles(model.state.files)).toMatchObject({total: 2, unchanged: 2, finished: 0});
		model.apply({type: 'file-started', name: 'a.txt'});
		now += 1000;
		model.apply({type: 'file-progress', name: 'a.txt', contentId: 'cont_a', sentBytes: 32 * kib, totalBytes: 64 * kib});
		// 32 KiB in 1 s: 96 KiB left at 32 KiB/s is 3 s.
		expect(transferRate(model.state, now)).toEqual({rate: 32 * kib, etaMs: 3000});
		model.apply({type: 'upload-complete', files: 2, failed: 0, bytes: 128 * kib, durationMs: 2000, bytesPerSecond: 64 * kib});
		expect(transferRate(model.state, now).etaMs).toBeUndefined();
	});

	it('shows the existing chat, the plan, the unchanged line and the ETA', async () => {
		let now = 1_000_000;
		const model = new UploadViewModel(() => now, 'Why?');
		const app = render(<UploadApp model={model} maxUpdatesPerSecond={1000} onCancel={() => {}}/>);
		instances.push(app);
		for (const event of [listed, {type: 'chat-checked', chatId: 'chat_1', messages: 4, durationMs: 5} as UploadEvent, planned, {type: 'file-started', name: 'a.txt'} as UploadEvent]) {
			model.apply(event);
		}

		now += 2000;
		model.apply({type: 'file-progress', name: 'a.txt', contentId: 'cont_a', sentBytes: 64 * kib, totalBytes: 64 * kib});
		const frame = await waitFor(() => app.lastFrame() ?? '', {until: text => text.includes('ETA')});
		expect(frame).toContain('chat_1 · existing chat, 4 messages');
		expect(frame).toContain('1 new · 1 replaced · 2 unchanged');
		expect(frame).toContain('unchanged, skipped (128 KiB): c.txt, d.txt');
		expect(frame).toMatch(/0\/2 files uploaded · 64\.0 KiB of 128 KiB · 32\.0 KiB\/s · ETA 2 s · 0 ingested · 2 unchanged/);
	});
});
