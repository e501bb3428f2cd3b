import {rmSync, statfsSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BackendUnavailableError, type EventBackend, type JobHandler} from '../../source/receiver/store/backend.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent} from '../receiver/journal/helpers.js';
import {mountTmpfs, rootOnly} from '../support/root.js';
import {waitFor} from '../support/wait.js';

const runs = rootOnly('The disk-full test');
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) {
		await cleanup();
	}
});

/** Fills the file system of `directory` but for `spare` bytes. */
function fill(directory: string, spare: number): string {
	const stats = statfsSync(directory);
	const file = path.join(directory, 'filler');
	writeFileSync(file, Buffer.alloc(Math.max(0, (stats.bavail * stats.bsize) - spare)));
	return file;
}

const bigBody = 'x'.repeat(8000);

/** Accepts events until one is refused (at most `max`); returns how many were stored and the refusal. */
async function acceptUntilRefused(backend: EventBackend, max: number): Promise<{stored: number; refusal: unknown}> {
	for (let index = 0; index < max; index++) {
		try {
			await backend.accept(newEvent({body: bigBody, status: 'ignored'}));
		} catch (error) {
			return {stored: index, refusal: error};
		}
	}

	return {stored: max, refusal: undefined};
}

describe.runIf(runs)('journal on a full disk (a real tmpfs)', () => {
	it('answers unavailable while the disk is full, is marked unwritable, and recovers by itself when space returns; a restart on the full disk does not crash', async () => {
		const fs = mountTmpfs(8 * 1024 * 1024);
		cleanups.push(() => {
			fs.unmount();
		});
		const handler: JobHandler = async job => {
			await job.recordStep({name: 'searched', at: new Date().toISOString(), data: {context: bigBody, documents: 1}});
			return {status: 'answered'};
		};

		const backend = await openJournal({directory: fs.directory, indexFlushMs: 20});
		cleanups.push(async () => backend.close());
		await backend.start(handler, {concurrency: 2});
		await backend.accept(newEvent());
		const filler = fill(fs.directory, 256 * 1024);

		const {stored, refusal} = await acceptUntilRefused(backend, 2000);
		expect(refusal).toBeInstanceOf(BackendUnavailableError);
		expect(stored).toBeLessThan(2000);
		const down = await backend.health?.();
		expect(down).toMatchObject({ok: false});
		expect(down?.ok === false ? down.reason : '').toMatch(/space|input\/output|commit/i);
		// Processing while full (steps cannot be written) does not take the process down either.
		await expect(backend.accept(newEvent({body: bigBody}))).rejects.toBeInstanceOf(BackendUnavailableError);

		// A restart on the still-full disk opens and refuses deliveries rather than crashing.
		await backend.close();
		const restarted = await openJournal({directory: fs.directory, indexFlushMs: 20});
		cleanups.push(async () => restarted.close());
		await restarted.start(handler, {concurrency: 2});
		const again = await acceptUntilRefused(restarted, 2000);
		expect(again.refusal).toBeInstanceOf(BackendUnavailableError);

		rmSync(filler);
		const event = newEvent({body: bigBody, status: 'ignored'});
		await waitFor(async () => restarted.accept(event).then(() => true, () => false), {what: 'an accept after space returned'});
		expect(await restarted.health?.()).toMatchObject({ok: true});
		expect((await restarted.get(event.id))?.id).toBe(event.id);
	});
});
