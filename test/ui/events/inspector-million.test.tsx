/**
 * The inspector on a journal of 1 000 000 events, written by a fixture straight into LMDB: the
 * first page shows the newest events, read without loading the journal (a handful of page reads).
 * Its time and memory are measured by `npm run bench` (test/bench/inspector.ts), not here.
 *
 * @start-first: the fixture takes seconds of CPU, so the file starts before the others
 * (test/support/sequencer.ts) rather than last in its tier.
 */
import {rmSync} from 'node:fs';
import {render} from 'ink-testing-library';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {JournalBackend, openJournal} from '../../../source/receiver/journal/index.js';
import {InspectorScreen} from '../../../source/ui/events/InspectorScreen.js';
import type {PageRead} from '../../../source/ui/events/inspector-window.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {waitFor} from '../../support/wait.js';
import {fillJournal, fixtureEvent} from './journal-fixture.js';

const million = 1_000_000;
let directory: string;

beforeAll(async () => {
	directory = tempDataDir();
	await fillJournal(directory, million, {newestMs: Date.now() - 60_000});
}, 600_000);

afterAll(() => {
	rmSync(directory, {recursive: true, force: true});
});

describe('the inspector on a million events', () => {
	it('shows the first page, newest first, after reading one page', async () => {
		const journal = await openJournal({directory, mode: 'read', verify: false});
		if (!(journal instanceof JournalBackend)) {
			throw new TypeError('expected the journal');
		}

		const backend = journal;
		const reads: PageRead[] = [];
		const instance = render(
			<InspectorScreen
				read={query => {
					reads.push(query);
					return backend.readPage(query);
				}}
				get={async id => backend.get(id)}
				where="a million events"
				actions={{replay: async () => Promise.resolve(''), edit: async () => Promise.resolve(''), copy: id => id}}
				colour={false}
				pollMs={3_600_000}
				onQuit={() => undefined}
			/>,
		);
		try {
			await waitFor(() => (instance.lastFrame() ?? '').includes(fixtureEvent(million - 1).id));
			const frame = instance.lastFrame() ?? '';
			expect(frame).toContain(fixtureEvent(million - 2).id);
			expect((await backend.stats()).count).toBe(million);
			// One page read: none of them reads the journal's length.
			expect(reads.length).toBeLessThanOrEqual(2);
			expect(reads.every(query => query.count <= 100)).toBe(true);
		} finally {
			instance.unmount();
			await backend.close();
		}
	});
});
