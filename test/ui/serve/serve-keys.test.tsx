import {readFileSync} from 'node:fs';
import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from '../../../source/receiver/events.js';
import {serveKeys} from '../../../source/ui/serve/keys.js';
import {replayingSource, ServeScreen, type ServeSource} from '../../../source/ui/serve/ServeScreen.js';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';

const at = '2025-01-01T10:00:00.000Z';
const arrowUp = '\u001B[A';
const escape = '\u001B';
const flat = (text: string | undefined) => (text ?? '').replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');

function stored(id: string, type: string, status: StoredEvent['status'], text: string): StoredEvent {
	return {id, event: type, receivedAt: at, updatedAt: at, body: JSON.stringify({id, payload: {chatid: `chat_${id}`, text}}), headers: {}, status, steps: [], attempts: 1};
}

const events = new Map([
	['evt_refund', stored('evt_refund', 'platform.chat.external-module.chosen', 'failed', 'Where is my refund?')],
	['evt_hello', stored('evt_hello', 'platform.chat.user-message.created', 'logged', 'Hello there')],
	['evt_price', stored('evt_price', 'platform.chat.external-module.chosen', 'answered', 'What does it cost?')],
]);

function mount(extras: Partial<ServeSource> = {}) {
	const listeners = new Set<ReceiverEventListener>();
	const counters: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	const source = replayingSource({
		counters: () => ({...counters}),
		on(_type, listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		event: async id => Promise.resolve(events.get(id)),
		...extras,
	});
	const emit = (event: ReceiverEvent) => {
		for (const listener of listeners) {
			listener(event);
		}
	};

	const instance = render(<ServeScreen source={source} url="http://127.0.0.1:8080" secretCount={1} drainTimeoutMs={25_000} keyStatus={() => ({keyMasked: '…abcd'})} flushIntervalMs={10} now={() => Date.parse(at)} onQuit={() => undefined} />);
	Object.defineProperty(instance.stdout, 'columns', {value: 100, configurable: true});
	Object.defineProperty(instance.stdout, 'rows', {value: 40, configurable: true});
	(instance.stdout as unknown as {emit(name: string): void}).emit('resize');
	return {instance, emit, dispose: () => {
		instance.unmount();
		source.dispose();
	}};
}

/** The three events, finished (one failed chosen event, one logged message, one answered). */
function emitRows(emit: (event: ReceiverEvent) => void) {
	for (const event of events.values()) {
		const chosen = event.event.endsWith('chosen');
		emit({type: 'accepted', at, request: 1, remoteAddress: '127.0.0.1', status: 200, eventType: event.event, handling: chosen ? 'queued' : 'logged', secretIndex: 0, eventId: event.id, chatId: `chat_${event.id}`, text: 'Hi'});
		if (chosen) {
			emit(event.status === 'failed'
				? {type: 'stage', at, eventId: event.id, chatId: `chat_${event.id}`, stage: 'failed', durationMs: 5, reason: 'model down', cleanup: {logsFailed: 1, apologyWritten: true, errors: []}}
				: {type: 'stage', at, eventId: event.id, chatId: `chat_${event.id}`, stage: 'answered', documents: 1, durationMs: 5});
		}
	}
}

describe('ServeScreen keys: / f p ? e y', () => {
	let dispose: (() => void) | undefined;
	afterEach(() => {
		dispose?.();
		dispose = undefined;
	});

	async function type(instance: ReturnType<typeof render>, text: string) {
		await effectsFlushed();
		instance.stdin.write(text);
		await effectsFlushed();
	}

	it('searches the rows by body text with /, and the arrows select among the matches only; Esc clears', async () => {
		const mounted = mount();
		dispose = mounted.dispose;
		const {instance} = mounted;
		emitRows(mounted.emit);
		await waitFor(() => flat(instance.lastFrame()).includes('answered 0') || flat(instance.frames.join('\n')).includes('evt_price'));
		await type(instance, '/');
		await waitFor(() => flat(instance.lastFrame()).includes('(Enter search · Esc cancel)'));
		await type(instance, 'refund');
		await type(instance, '\r');
		await waitFor(() => flat(instance.lastFrame()).includes('search "refund": 1 of 3 rows match'));
		await type(instance, arrowUp);
		await waitFor(() => flat(instance.lastFrame()).includes('› '));
		expect(flat(instance.lastFrame())).toMatch(/› evt_refund · /);
		// Up again stays on the one match: the others are not selectable.
		await type(instance, arrowUp);
		expect(flat(instance.lastFrame())).toMatch(/› evt_refund · /);
		await type(instance, escape);
		await waitFor(() => !flat(instance.lastFrame()).includes('rows match'));
		expect(flat(instance.lastFrame())).not.toContain('› ');
	});

	it('filters by type and status with f (the inspector\'s filter words), and names a wrong word', async () => {
		const mounted = mount();
		dispose = mounted.dispose;
		const {instance} = mounted;
		emitRows(mounted.emit);
		await waitFor(() => flat(instance.frames.join('\n')).includes('evt_price'));
		await type(instance, 'f');
		await waitFor(() => flat(instance.lastFrame()).includes('filter: '));
		await type(instance, 'status=bogus');
		await type(instance, '\r');
		await waitFor(() => flat(instance.lastFrame()).includes('status must be one of'));
		await type(instance, escape);
		await waitFor(() => !flat(instance.lastFrame()).includes('filter: '));
		await type(instance, 'f');
		await waitFor(() => flat(instance.lastFrame()).includes('filter: '));
		await type(instance, 'type=platform.chat.external-module.chosen status=answered');
		await type(instance, '\r');
		await waitFor(() => flat(instance.lastFrame()).includes('status=answered type=platform.chat.external-module.chosen: 1 of 3 rows match'));
		await type(instance, arrowUp);
		await waitFor(() => /› evt_price · /.test(flat(instance.lastFrame())));
	});

	it('shows every key in the ? help, and any key closes it', async () => {
		const mounted = mount();
		dispose = mounted.dispose;
		const {instance} = mounted;
		await type(instance, '?');
		await waitFor(() => flat(instance.lastFrame()).includes('Any key closes this help.'));
		for (const key of serveKeys) {
			expect(flat(instance.lastFrame())).toContain(flat(key.does));
		}

		await type(instance, 'x');
		await waitFor(() => !flat(instance.lastFrame()).includes('Any key closes this help.'));
	});

	it('pauses the log with p: finished rows are held, then written on resume', async () => {
		const mounted = mount();
		dispose = mounted.dispose;
		const {instance} = mounted;
		await type(instance, 'p');
		await waitFor(() => flat(instance.lastFrame()).includes('paused: 0 finished rows held (p resumes)'));
		mounted.emit({type: 'accepted', at, request: 9, remoteAddress: '127.0.0.1', status: 200, eventType: 'platform.chat.user-message.created', handling: 'logged', secretIndex: 0, eventId: 'evt_one', chatId: 'chat_one', text: 'One'});
		await waitFor(() => flat(instance.lastFrame()).includes('paused: 1 finished row held (p resumes)'));
		emitRows(mounted.emit);
		await waitFor(() => flat(instance.lastFrame()).includes('paused: 4 finished rows held'));
		expect(flat(instance.frames.join('\n'))).not.toContain('evt_hello');
		await type(instance, 'p');
		await waitFor(() => flat(instance.frames.join('\n')).includes('evt_hello'));
		expect(flat(instance.lastFrame())).not.toContain('paused');
	});

	it('copies the selected id with y (OSC 52) and edits and replays it with e', async () => {
		const edits: string[] = [];
		const mounted = mount({edit: async (id, stored) => {
			edits.push(id);
			// The copy is stored, then processed: its job's stages arrive before the sentence.
			stored?.('evt_new');
			mounted.emit({type: 'stage', at, eventId: 'evt_new', chatId: 'chat_evt_price', stage: 'searching'});
			mounted.emit({type: 'stage', at, eventId: 'evt_new', chatId: 'chat_evt_price', stage: 'answered', documents: 1, durationMs: 7});
			return Promise.resolve(`Stored the edited copy of ${id} as evt_new and replayed it: answered`);
		}});
		dispose = mounted.dispose;
		const {instance} = mounted;
		await type(instance, 'y');
		await waitFor(() => flat(instance.lastFrame()).includes('select an event with ↑/↓ first, then press y'));
		emitRows(mounted.emit);
		await waitFor(() => flat(instance.frames.join('\n')).includes('evt_price'));
		await type(instance, arrowUp);
		await waitFor(() => /› evt_price · /.test(flat(instance.lastFrame())));
		await type(instance, 'y');
		await waitFor(() => flat(instance.lastFrame()).includes('evt_price (sent to the clipboard with OSC 52') || flat(instance.lastFrame()).includes('copied evt_price'));
		expect(instance.frames.join('')).toContain(`\u001B]52;c;${Buffer.from('evt_price').toString('base64')}\u0007`);
		await type(instance, 'e');
		await waitFor(() => flat(instance.lastFrame()).includes('Stored the edited copy of evt_price as evt_new and replayed it: answered'));
		expect(edits).toEqual(['evt_price']);
		// The copy's row says it is an edited copy, not a job resumed at start-up.
		const copyRow = instance.frames.join('\n').split('\n').find(line => line.includes('answered in 7 ms'));
		expect(copyRow).toContain('edited');
		expect(copyRow).not.toContain('resumed');
	});
});

describe('docs/serve.md', () => {
	it('documents every key of the serve screen', () => {
		const docs = readFileSync(new URL('../../../docs/serve.md', import.meta.url), 'utf8');
		for (const key of serveKeys) {
			expect(docs).toContain(`| \`${key.keys}\` |`);
		}
	});
});
