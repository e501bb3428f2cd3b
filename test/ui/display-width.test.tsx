/**
 * The screens measure what a terminal shows: upload's rows with names in other scripts (wide CJK,
 * a combining accent, emoji) and runs of spaces line up and keep their content ids whole; the
 * inspector keeps long chat ids whole.
 */
import {render} from 'ink-testing-library';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {UploadApp} from '../../source/ui/upload/app.js';
import {UploadViewModel} from '../../source/ui/upload/state.js';
import type {UploadEvent} from '../../source/workflow/events.js';
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

const names = ['保修说明.md', 'cafe\u0301.txt', 'file with  spaces.txt', '👩‍👩‍👧 family 🎉.txt', 'plain.md'];
const contentIdOf = (index: number) => `cont_8d10e21c7b39efa88207de5${index}`;

function finishedUpload(): UploadViewModel {
	const model = new UploadViewModel(() => 1_700_000_000_000, 'How long is the warranty?');
	const events: UploadEvent[] = [
		{type: 'files-listed', folder: 'docs', files: names.map(name => ({name, size: 2048, mimeType: 'text/markdown'})), totalBytes: 2048 * names.length, skipped: []},
		{type: 'chat-created', chatId: 'chat_712917707c406c0b2d9e8f1a', title: 'Folder upload session', durationMs: 40},
	];
	for (const [index, name] of names.entries()) {
		const contentId = contentIdOf(index);
		events.push({type: 'file-upserted', name, contentId}, {type: 'file-uploaded', name, contentId, bytes: 2048, durationMs: 1}, {type: 'file-finalized', name, contentId});
	}

	events.push({type: 'ingestion-started', total: names.length, timeoutMs: 80_000});
	for (const [index, name] of names.entries()) {
		events.push({type: 'ingestion-state', contentId: contentIdOf(index), name, state: 'FINISHED', final: true});
	}

	for (const event of events) {
		model.apply(event);
	}

	return model;
}

describe('upload rows with names in other scripts', () => {
	it.each([100, 60])('line up in display columns at %i columns, names shown as they are, ids whole', async columns => {
		terminalOf(columns);
		const instance = render(<UploadApp model={finishedUpload()} maxUpdatesPerSecond={1000} onCancel={() => undefined}/>);
		cleanups.push(() => {
			instance.unmount();
		});
		await waitFor(() => stripAnsi(instance.lastFrame() ?? '').includes(contentIdOf(names.length - 1)));
		const rows = stripAnsi(instance.lastFrame() ?? '').split('\n').filter(line => line.startsWith('✔'));
		expect(rows).toHaveLength(names.length);
		// The state column starts at the same column on every row, whatever the name's script.
		const stateAt = rows.map(line => stringWidth(line.slice(0, line.indexOf('FINISHED'))));
		expect(new Set(stateAt).size).toBe(1);
		for (const [index, line] of rows.entries()) {
			expect(stringWidth(line)).toBeLessThanOrEqual(columns);
			expect(line).toContain(contentIdOf(index));
		}

		// Cut or not, the name keeps its two spaces.
		expect(rows.some(line => line.includes('file with  spa'))).toBe(true);
		expect(rows.some(line => line.includes('保修说明.md'))).toBe(true);
		expect(rows.some(line => line.includes('cafe\u0301.txt'))).toBe(true);
	});
});

describe('the inspector', () => {
	it('shows long chat ids whole at 100 columns', async () => {
		const instance = renderInspector(true, cleanups);
		await waitFor(() => (instance.lastFrame() ?? '').includes(storedEvent(2).id));
		const frame = stripAnsi(instance.lastFrame() ?? '');
		for (const index of [0, 1, 2]) {
			expect(frame).toContain(longChatId(index));
		}

		expect(frame).not.toMatch(/chat_\w*…/);
	});

	it('wraps the detail pane at 60 columns without cutting or splitting an id', async () => {
		terminalOf(60);
		const chatId = longChatId(0);
		const failed = {
			...storedEvent(0),
			status: 'failed' as const,
			error: `POST /chat/messages for ${chatId} answered 503 while the platform restarted`,
			body: JSON.stringify({id: storedEvent(0).id, payload: {chatId, text: '保修期是多久？请看保修说明。保修期是多久？请看保修说明。'}}),
			steps: [{at: '2025-03-01T14:05:09.000Z', name: 'answer', error: `the answer for ${chatId} was not written`}],
		};
		const instance = renderInspector(true, cleanups, [failed]);
		await waitFor(() => (instance.lastFrame() ?? '').includes(failed.id));
		instance.stdin.write('\r');
		await waitFor(() => stripAnsi(instance.lastFrame() ?? '').includes('Headers'));
		const lines = stripAnsi(instance.lastFrame() ?? '').split('\n');
		expect(lines.every(line => stringWidth(line) <= 60)).toBe(true);
		const mentions = lines.filter(line => line.includes('chat_7129'));
		expect(mentions.length).toBeGreaterThanOrEqual(3);
		expect(mentions.every(line => line.includes(chatId))).toBe(true);
	});
});
