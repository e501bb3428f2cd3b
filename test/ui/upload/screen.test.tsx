import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import {UploadApp} from '../../../source/ui/upload/app.js';
import {UploadViewModel} from '../../../source/ui/upload/state.js';
import type {UploadEvent} from '../../../source/workflow/events.js';
import {waitFor} from '../../support/wait.js';

const instances: Array<{unmount: () => void}> = [];

afterEach(() => {
	for (const instance of instances.splice(0)) {
		instance.unmount();
	}
});

/** A clock the test moves by hand, so elapsed times on screen are exact. */
function manualClock(start = 1_700_000_000_000): {now: () => number; advance: (ms: number) => void} {
	let now = start;
	return {
		now: () => now,
		advance(ms) {
			now += ms;
		},
	};
}

function setup(options: {prompt?: string} = {}) {
	const clock = manualClock();
	const model = new UploadViewModel(clock.now, options.prompt ?? 'How long is the warranty?');
	let cancels = 0;
	const app = render(<UploadApp model={model} maxUpdatesPerSecond={1000} onCancel={() => {
		cancels++;
	}}/>);
	instances.push(app);
	const frame = (): string => app.lastFrame() ?? '';
	const shows = async (text: string | RegExp): Promise<string> => {
		await waitFor(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), {what: `the screen to show ${String(text)}\n${frame()}`});
		return frame();
	};

	return {model, app, clock, frame, shows, cancels: () => cancels, apply: (...events: UploadEvent[]) => {
		for (const event of events) {
			model.apply(event);
		}
	}};
}

const listed: UploadEvent = {
	type: 'files-listed',
	folder: 'docs',
	files: [
		{name: 'faq.md', size: 2048, mimeType: 'text/markdown'},
		{name: 'manual.pdf', size: 4 * 1024 * 1024, mimeType: 'application/pdf'},
	],
	totalBytes: 2048 + (4 * 1024 * 1024),
	skipped: [],
};

const space: UploadEvent = {type: 'space-loaded', space: {name: 'Support Space', languageModel: 'AZURE_GPT_4o_2024_1120', chatUpload: 'ENABLED', modules: ['DocumentSearch', 'ExternalModule']}};

describe('upload screen', () => {
	it('shows the space, a spinner while the chat is created, then its id and the elapsed time', async () => {
		const {apply, shows, clock} = setup();
		apply(listed, space, {type: 'chat-creating', title: 'Folder upload session'});
		let frame = await shows('creating "Folder upload session"');
		expect(frame).toContain('Support Space');
		expect(frame).toContain('AZURE_GPT_4o_2024_1120');
		expect(frame).toContain('chat upload ENABLED');
		expect(frame).toContain('DocumentSearch, ExternalModule');
		clock.advance(2500);
		apply({type: 'chat-created', chatId: 'chat_abc123', title: 'Folder upload session', durationMs: 40});
		frame = await shows('chat_abc123');
		expect(frame).toMatch(/✔ chat_abc123 · Folder upload session · 2\.5 s elapsed/);
	});

	it('shows a warning when the space could not be loaded', async () => {
		const {apply, shows} = setup();
		apply({type: 'space-warning', message: 'Could not load space assistant_x: GET /space/assistant_x failed with HTTP 404; going on without it'});
		expect(await shows('⚠')).toContain('Could not load space assistant_x');
	});

	it('shows byte progress during the PUT, the totals line with throughput, and the ingestion state after', async () => {
		const {apply, shows, clock} = setup();
		apply(listed, space, {type: 'chat-created', chatId: 'chat_abc123', title: 'Folder upload session', durationMs: 40});
		apply({type: 'file-upserted', name: 'manual.pdf', contentId: 'cont_pdf'});
		clock.advance(1000);
		apply({type: 'file-progress', name: 'manual.pdf', contentId: 'cont_pdf', sentBytes: 2 * 1024 * 1024, totalBytes: 4 * 1024 * 1024});
		let frame = await shows('50%');
		expect(frame).toMatch(/manual\.pdf\s+4\.00 MiB\s+█{10}░{10}\s+50%/);
		expect(frame).toContain('0/2 files uploaded · 2.00 MiB of 4.00 MiB · 2.00 MiB/s · ETA 2 s · 0 ingested');
		expect(frame).toMatch(/faq\.md\s+2\.00 KiB\s+waiting/);

		apply(
			{type: 'file-progress', name: 'manual.pdf', contentId: 'cont_pdf', sentBytes: 4 * 1024 * 1024, totalBytes: 4 * 1024 * 1024},
			{type: 'file-uploaded', name: 'manual.pdf', contentId: 'cont_pdf', bytes: 4 * 1024 * 1024, durationMs: 1000},
			{type: 'file-finalized', name: 'manual.pdf', contentId: 'cont_pdf'},
			{type: 'ingestion-started', total: 2, timeoutMs: 80_000},
			{type: 'ingestion-state', contentId: 'cont_pdf', name: 'manual.pdf', state: 'INGESTION_CHUNKING', final: false},
		);
		// A file being ingested collapses into the totals line; the file still waiting keeps its row.
		frame = await shows('1/2 files uploaded');
		expect(frame).not.toMatch(/manual\.pdf/);
		expect(frame).toMatch(/faq\.md\s+2\.00 KiB\s+waiting/);
		expect(frame).toContain('1/2 files uploaded');
		clock.advance(3000);
		apply({type: 'ingestion-round', round: 2, finished: 0, failed: 0, total: 2, pending: ['cont_md', 'cont_pdf'], elapsedMs: 3000, timeoutMs: 80_000});
		frame = await shows('round 2');
		expect(frame).toMatch(/0\/2 finished · 3\.0 s of 80 s · round 2/);
	});

	it('moves final rows to the static part with ✔ and ✖ and shows an error as one sentence in a red panel', async () => {
		const {apply, shows, model} = setup();
		apply(listed, space, {type: 'chat-created', chatId: 'chat_abc123', title: 'Folder upload session', durationMs: 40});
		for (const [name, contentId] of [['faq.md', 'cont_md'], ['manual.pdf', 'cont_pdf']] as const) {
			apply(
				{type: 'file-upserted', name, contentId},
				{type: 'file-uploaded', name, contentId, bytes: 1, durationMs: 1},
				{type: 'file-finalized', name, contentId},
			);
		}

		apply(
			{type: 'ingestion-started', total: 2, timeoutMs: 80_000},
			{type: 'ingestion-state', contentId: 'cont_md', name: 'faq.md', state: 'FINISHED', final: true},
			{type: 'ingestion-state', contentId: 'cont_pdf', name: 'manual.pdf', state: 'FAILED_PARSING', final: true},
		);
		model.fail('Ingestion failed for content cont_pdf (manual.pdf) with state FAILED_PARSING; check that the file is readable and of a supported type.');
		const frame = await shows('Error');
		expect(frame).toMatch(/✔ faq\.md\s+2\.00 KiB\s+FINISHED\s+cont_md/);
		expect(frame).toMatch(/✖ manual\.pdf\s+4\.00 MiB\s+FAILED_PARSING\s+cont_pdf/);
		expect(frame).toContain('Ingestion failed for content cont_pdf (manual.pdf) with state FAILED_PARSING');
		expect(frame).not.toContain('q or Ctrl+C to cancel');
		// The static part (space, chat, final rows, in the order they happened) comes before the last frame.
		expect(frame.indexOf('Support Space')).toBeLessThan(frame.indexOf('faq.md'));
		expect(frame.indexOf('faq.md')).toBeLessThan(frame.indexOf('files uploaded'));
		// The label and the sentence are one paragraph: no "ErrorIngestion".
		expect(frame).toContain('Error: Ingestion failed');
	});

	it('streams the reply, then shows the final reply and the history', async () => {
		const {apply, shows, clock, frame} = setup();
		apply(listed, space, {type: 'chat-created', chatId: 'chat_abc123', title: 'Folder upload session', durationMs: 40});
		expect(await shows('will ask: How long is the warranty?')).toBeTruthy();
		apply({type: 'message-sent', messageId: 'msg_1', text: 'How long is the warranty?'});
		clock.advance(700);
		apply({type: 'reply-progress', text: 'The warranty lasts', elapsedMs: 700});
		let screen = await shows('The warranty lasts');
		expect(screen).toContain('streaming');
		apply(
			{type: 'reply-complete', text: 'The warranty lasts two years.', elapsedMs: 1200},
			{type: 'history', messages: [{role: 'USER', text: 'How long is the warranty?'}, {role: 'ASSISTANT', text: 'The warranty lasts two years.'}]},
			{type: 'result', chatId: 'chat_abc123', contentIds: ['cont_md', 'cont_pdf'], reply: 'The warranty lasts two years.', failed: []},
		);
		screen = await shows('History');
		expect(screen).toContain('answered in 1.2 s');
		expect(screen).toMatch(/Reply\s+The warranty lasts two years\./);
		expect(screen).toMatch(/USER\s+How long is the warranty\?/);
		expect(screen).toMatch(/ASSISTANT\s+The warranty lasts two years\./);
		expect(frame()).not.toContain('streaming');
	});

	it('cancels on q and on Ctrl+C', async () => {
		const {app, cancels, apply, shows} = setup();
		apply(listed);
		await shows('q or Ctrl+C to cancel');
		app.stdin.write('q');
		await waitFor(() => cancels() === 1, {what: 'q to cancel'});
		app.stdin.write('\u0003');
		await waitFor(() => cancels() === 2, {what: 'Ctrl+C to cancel'});
	});

	it('says so when cancelled', async () => {
		const {model, apply, shows} = setup();
		apply(listed);
		model.cancel();
		expect(await shows('Cancelled; in-flight requests were aborted.')).not.toContain('q or Ctrl+C');
	});

	it('keeps the live part shorter than the terminal: as many rows as fit, transfers first, then failures, then waiting', async () => {
		const clock = manualClock();
		const model = new UploadViewModel(clock.now, 'q');
		const app = render(<UploadApp model={model} maxUpdatesPerSecond={1000} rows={15} onCancel={() => {}}/>);
		instances.push(app);
		const files = Array.from({length: 60}, (_, index) => ({name: `file-${String(index).padStart(2, '0')}.txt`, size: 10, mimeType: 'text/plain'}));
		model.apply({type: 'files-listed', folder: 'many', files, totalBytes: 600, skipped: []});
		model.apply({type: 'chat-created', chatId: 'chat_1', title: 't', durationMs: 1});
		for (const file of files.slice(0, 30)) {
			model.apply({type: 'file-started', name: file.name}, );
			model.apply({type: 'file-upserted', name: file.name, contentId: `cont_${file.name}`});
			model.apply({type: 'file-uploaded', name: file.name, contentId: `cont_${file.name}`, bytes: 10, durationMs: 1});
			model.apply({type: 'file-finalized', name: file.name, contentId: `cont_${file.name}`});
		}

		model.apply({type: 'file-failed', name: 'file-30.txt', message: 'Uploading file-30.txt failed: HTTP 403', code: 'blob-upload-failed'});
		model.apply({type: 'file-started', name: 'file-59.txt'});
		model.apply({type: 'file-upserted', name: 'file-59.txt', contentId: 'cont_59'});
		model.apply({type: 'file-progress', name: 'file-59.txt', contentId: 'cont_59', sentBytes: 5, totalBytes: 10});
		model.apply({type: 'retry', file: 'file-59.txt', operation: 'PUT blob', attempt: 1, retryInMs: 2000, reason: 'HTTP 503'});
		await waitFor(() => (app.lastFrame() ?? '').includes('more'), {what: 'the count of the rest'});
		const lines = (app.lastFrame() ?? '').split('\n');
		// The failure was also printed once above (static); the live area starts at the totals line.
		const live = lines.slice(lines.findIndex(line => line.includes('files uploaded')));
		expect(live.length).toBeLessThan(15);
		expect(live.at(-1)).toContain('q or Ctrl+C to cancel');
		const text = live.join('\n');
		// The active transfer (with its bar and the retry) first, then the failure, then waiting files.
		expect(text).toMatch(/file-59\.txt.*50%.*retrying in 2 s after HTTP 503/);
		expect(text.indexOf('file-59.txt')).toBeLessThan(text.indexOf('file-30.txt'));
		expect(text.indexOf('file-30.txt')).toBeLessThan(text.indexOf('file-31.txt'));
		// Uploaded files collapse into the totals; the rest is summarized.
		expect(text).not.toContain('file-00.txt');
		expect(text).toMatch(/30\/60 files uploaded · .* · 0 ingested · 1 failed/);
		expect(text).toMatch(/… \d+ more: \d+ waiting, 30 uploaded/);
	});

	it('derives the files line and the ingestion line from one state', async () => {
		const {apply, shows} = setup();
		apply(listed, space, {type: 'chat-created', chatId: 'chat_abc123', title: 'Folder upload session', durationMs: 40});
		for (const [name, contentId] of [['faq.md', 'cont_md'], ['manual.pdf', 'cont_pdf']] as const) {
			apply({type: 'file-upserted', name, contentId}, {type: 'file-uploaded', name, contentId, bytes: 1, durationMs: 1}, {type: 'file-finalized', name, contentId});
		}

		apply(
			{type: 'ingestion-started', total: 2, timeoutMs: 80_000},
			{type: 'ingestion-state', contentId: 'cont_md', name: 'faq.md', state: 'FINISHED', final: true},
			// A round event that lags behind the states does not make the two lines disagree.
			{type: 'ingestion-round', round: 1, finished: 0, failed: 0, total: 2, pending: ['cont_md', 'cont_pdf'], elapsedMs: 10, timeoutMs: 80_000},
		);
		const frame = await shows('round 1');
		expect(frame).toContain('1 ingested');
		expect(frame).toContain('1/2 finished');
	});

	it('leaves no spinner and names the chat it created when cancelled', async () => {
		const {apply, model, shows, frame} = setup();
		apply(listed, space, {type: 'chat-created', chatId: 'chat_abc123', title: 'Folder upload session', durationMs: 40});
		apply({type: 'file-upserted', name: 'faq.md', contentId: 'cont_md'}, {type: 'file-uploaded', name: 'faq.md', contentId: 'cont_md', bytes: 2048, durationMs: 1});
		model.cancel();
		await shows('Cancelled');
		expect(frame()).toContain('Chat chat_abc123 was created and keeps 1 uploaded file.');
		expect(frame()).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
		expect(frame()).not.toContain('Ingestion waiting');
		expect(frame()).not.toContain('will ask');
	});

	it('wraps a long error as one paragraph, every line starting inside the box', async () => {
		const clock = manualClock();
		const model = new UploadViewModel(clock.now, 'q');
		const app = render(<UploadApp model={model} maxUpdatesPerSecond={1000} onCancel={() => {}}/>);
		instances.push(app);
		model.fail('Timed out after 60 s waiting for the assistant\'s reply in chat chat_abcdefghijklmnopqrstuvwxyz0123456789. Raise --reply-timeout to wait longer; the chat keeps the uploaded files.');
		await waitFor(() => (app.lastFrame() ?? '').includes('Error:'), {what: 'the error box'});
		const lines = (app.lastFrame() ?? '').split('\n').filter(line => line.startsWith('│'));
		expect(lines.length).toBeGreaterThan(1);
		expect(lines.join('\n')).toContain('Error: Timed out');
		expect(lines.every(line => line.startsWith('│ ') && !line.startsWith('│  '))).toBe(true);
	});

	it('re-renders at a bounded rate, not once per event', async () => {
		const clock = manualClock();
		const model = new UploadViewModel(clock.now, 'q');
		const app = render(<UploadApp model={model} maxUpdatesPerSecond={10} onCancel={() => {}}/>);
		instances.push(app);
		model.apply({type: 'files-listed', folder: 'docs', files: [{name: 'big.bin', size: 1000, mimeType: 'application/octet-stream'}], totalBytes: 1000, skipped: []});
		model.apply({type: 'file-upserted', name: 'big.bin', contentId: 'cont_big'});
		await waitFor(() => (app.lastFrame() ?? '').includes('0%'), {what: 'the first frame'});
		const before = app.frames.length;
		for (let sent = 1; sent <= 500; sent++) {
			model.apply({type: 'file-progress', name: 'big.bin', contentId: 'cont_big', sentBytes: sent * 2, totalBytes: 1000});
		}

		await waitFor(() => (app.lastFrame() ?? '').includes('100%'), {what: 'the last progress'});
		expect(app.frames.length - before).toBeLessThan(5);
	});
});
