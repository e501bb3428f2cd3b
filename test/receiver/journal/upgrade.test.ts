/**
 * A journal written by release 0.1.0 opens unchanged after an upgrade. The fixture
 * (test/fixtures/journal-0.1.0/data.mdb.gz) was written by that release's code: five events
 * accepted through `openJournal` (received, answered, failed, ignored, logged; one with another
 * header, one of an unknown type, one with a note), one rewritten as answered with a step, and one
 * in the object form of the versions before the positional records. Its records carry no
 * checksum: they read as they are, and carry one from their next write on.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {gunzipSync} from 'node:zlib';
import {afterEach, describe, expect, it} from 'vitest';
import type {EventBackend} from '../../../source/receiver/store/backend.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {journalDirectory} from '../../../source/receiver/journal/open/location.js';
import {openStores, readEvent} from '../../../source/receiver/journal/store.js';
import {tempDataDir} from './helpers.js';

const fixture = fileURLToPath(new URL('../../fixtures/journal-0.1.0/data.mdb.gz', import.meta.url));
const base = Date.parse('2026-11-27T12:00:00.000Z');

const open: EventBackend[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map(async backend => backend.close()));
});

/** A data directory holding a copy of the fixture's journal. */
function fixtureDataDir(): string {
	const directory = tempDataDir();
	mkdirSync(path.join(directory, 'journal'));
	writeFileSync(path.join(directory, 'journal', 'data.mdb'), gunzipSync(readFileSync(fixture)));
	return directory;
}

describe('a journal written by release 0.1.0', () => {
	it('lists and shows every event as that release wrote it', async () => {
		const journal = await openJournal({directory: fixtureDataDir(), mode: 'read'});
		open.push(journal);
		const listed = await journal.list({});
		expect(listed.map(event => [event.id, event.status])).toEqual([
			['evt_fixture_5', 'logged'],
			['evt_fixture_4', 'logged'],
			['evt_fixture_3', 'ignored'],
			['evt_fixture_2', 'failed'],
			['evt_fixture_1', 'answered'],
			['evt_fixture_0', 'received'],
		]);
		const failed = await journal.get('evt_fixture_2');
		expect(failed).toMatchObject({
			event: 'platform.chat.external-module.chosen',
			receivedAt: new Date(base + 2000).toISOString(),
			headers: {'x-platform-signature': 'ab'.repeat(32), 'x-platform-id': 'evt_fixture_2', 'user-agent': 'fixture/1', 'x-custom': 'kept'},
			chatId: 'chat_fixture_2',
			attempts: 0,
		});
		expect(JSON.parse(failed?.body ?? '')).toMatchObject({payload: {text: 'grüße 2'}});
		expect((await journal.get('evt_fixture_3'))?.event).toBe('platform.chat.other');
		expect((await journal.get('evt_fixture_4'))?.note).toBe('a note');
		const answered = await journal.get('evt_fixture_1');
		expect(answered).toMatchObject({status: 'answered', durationMs: 2000, attempts: 1, finishedAt: new Date(base + 3000).toISOString()});
		expect(answered?.steps).toEqual([{name: 'answer', at: new Date(base + 2000).toISOString(), data: {messageId: 'msg_1'}}]);
		expect(await journal.get('evt_fixture_5')).toMatchObject({event: 'platform.chat.user-message.created', status: 'logged', chatId: 'chat_fixture_5'});
	});

	it('opens for serve, keeps its ids exactly-once and takes new events beside the old', async () => {
		const journal = await openJournal({directory: fixtureDataDir()});
		open.push(journal);
		expect(await journal.accept({id: 'evt_fixture_2', event: 'platform.chat.external-module.chosen', receivedAt: new Date().toISOString(), body: '{}', headers: {}, status: 'ignored'})).toBe('duplicate');
		expect(await journal.accept({id: 'evt_after_upgrade', event: 'platform.chat.external-module.chosen', receivedAt: new Date().toISOString(), body: '{}', headers: {}, status: 'ignored'})).toBe('stored');
		expect((await journal.list({})).map(event => event.id)).toEqual(['evt_after_upgrade', 'evt_fixture_5', 'evt_fixture_4', 'evt_fixture_3', 'evt_fixture_2', 'evt_fixture_1', 'evt_fixture_0']);
	});

	it('carries a checksum from a record\'s next write on; the records not written again stay as they were', async () => {
		const directory = fixtureDataDir();
		const journal = await openJournal({directory, mode: 'replay'});
		expect(await journal.replay('evt_fixture_2', async () => Promise.resolve({status: 'answered' as const}))).toMatchObject({outcome: 'done'});
		await journal.close();
		const stores = openStores(journalDirectory(directory), {readOnly: true});
		try {
			const stored = (id: string, ms: number) => stores.events.get([base + ms, id]) as unknown[];
			expect(stored('evt_fixture_2', 2000)).toHaveLength(21);
			expect(stored('evt_fixture_3', 3000)).toHaveLength(20);
			expect(readEvent(stores, [base + 2000, 'evt_fixture_2'])?.record).toMatchObject({status: 'answered', attempts: 1, chatId: 'chat_fixture_2'});
		} finally {
			await stores.root.close();
		}
	});
});
