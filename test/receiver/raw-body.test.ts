/**
 * The raw body bytes are what is stored and sent again: a signed body that is not valid UTF-8 (and
 * one with a byte-order mark) is accepted, stored, forwarded, replayed and exported byte for byte
 * in memory and in the journal. The Redis backend's run is in test/receiver/redis/raw-body.test.ts.
 */
import {describe, expect, it} from 'vitest';
import eventsShow from '../../source/commands/events/show.js';
import {createMemoryBackend} from '../../source/receiver/store/memory-backend.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {tempDataDir} from './journal/helpers.js';
import {runCommand} from '../support/run-command.js';
import {newEventId} from './helpers.js';
import {bomBody, exportedBytes, latin1Body, rawBodyRoundTrip} from './raw-body.js';

describe('raw body bytes', () => {
	it('memory: a body that is not UTF-8 is stored, forwarded and replayed byte for byte', async () => {
		const id = newEventId();
		const body = latin1Body(id);
		const [stored] = await rawBodyRoundTrip(createMemoryBackend(), [{id, body}]);
		expect(stored?.bodyEncoding).toBe('base64');
	});

	it('journal: stored, forwarded, replayed, exported (stdout and file) and shown with its exact bytes', async () => {
		const directory = tempDataDir();
		const [latinId, bomId, utf8Id] = [newEventId(), newEventId(), newEventId()];
		const latin1 = {id: latinId, body: latin1Body(latinId)};
		const bom = {id: bomId, body: bomBody(bomId)};
		const utf8 = {id: utf8Id, body: Buffer.from(`{"id":"${utf8Id}","event":"platform.chat.user-message.created","createdAt":"${Math.floor(Date.now() / 1000)}","payload":{"text":"ünïcode ✓"}}`)};
		const stored = await rawBodyRoundTrip(await openJournal({directory}), [latin1, bom, utf8]);
		// Text when the bytes are UTF-8 (readable in the journal), base64 only when they are not.
		expect(stored.map(event => event.bodyEncoding)).toEqual(['base64', undefined, undefined]);
		expect(stored[1]?.body.startsWith('\uFEFF')).toBe(true);

		for (const {id, body} of [latin1, bom, utf8]) {
			const exported = await exportedBytes(id, {dataDir: directory});
			expect(exported.file.equals(body)).toBe(true);
			// On stdout a line end is added only to a body that has none.
			expect(exported.stdout.equals(body.at(-1) === 0x0A ? body : Buffer.concat([body, Buffer.from('\n')]))).toBe(true);
		}

		const shown = await runCommand(eventsShow, {argv: [latin1.id], flags: {dataDir: directory, json: true}});
		const detail = JSON.parse(shown.stdout) as {body: {payload: {text: string}}; bodyBase64?: string; bodyEncoding?: string};
		expect(detail.body.payload.text).toBe('caf\uFFFD \uFFFD');
		expect(Buffer.from(detail.bodyBase64 ?? '', 'base64').equals(latin1.body)).toBe(true);
		expect(detail.bodyEncoding).toBeUndefined();
		const plain = await runCommand(eventsShow, {argv: [latin1.id], flags: {dataDir: directory}});
		expect(plain.stdout).toContain('not valid UTF-8');
		const bomShown = JSON.parse((await runCommand(eventsShow, {argv: [bom.id], flags: {dataDir: directory, json: true}})).stdout) as {body: {payload: {text: string}}; bodyBase64?: string};
		expect(bomShown.body.payload.text).toBe('with a BOM');
		expect(bomShown.bodyBase64).toBeUndefined();
	});
});
