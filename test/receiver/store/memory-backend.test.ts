import {describe, expect, it} from 'vitest';
import type {JobHandler, NewEvent} from '../../../source/receiver/store/backend.js';
import {createMemoryBackend, DrainTimeoutError} from '../../../source/receiver/store/memory-backend.js';

function newEvent(id: string, status: NewEvent['status'] = 'received'): NewEvent {
	return {id, event: 'platform.chat.external-module.chosen', receivedAt: new Date().toISOString(), body: '{}', headers: {}, status};
}

describe('the memory backend', () => {
	it('stores once, answers duplicate after, and refuses with busy when the queue is full without taking the id', async () => {
		const backend = createMemoryBackend({maxPending: 1});
		expect(await backend.accept(newEvent('evt_1'))).toBe('stored');
		expect(await backend.accept(newEvent('evt_1'))).toBe('duplicate');
		await expect(backend.accept(newEvent('evt_2'))).rejects.toMatchObject({code: 'backend-busy'});
		// Not started yet: evt_1 waits. Once it ran, evt_2's redelivery is taken.
		const handler: JobHandler = async ({recordStep}) => {
			await recordStep({name: 'searched', at: new Date().toISOString()});
			return {status: 'answered'};
		};

		await backend.start(handler, {concurrency: 1});
		expect(await backend.stop(1000)).toEqual({cutOff: 0});
		expect(await backend.get('evt_1')).toMatchObject({status: 'answered', attempts: 1, steps: [{name: 'searched'}]});
		expect(await backend.accept(newEvent('evt_2'))).toBe('stored');
	});

	it('lists newest first with filters, and replays a stored event with a fresh attempt', async () => {
		const backend = createMemoryBackend();
		await backend.accept(newEvent('evt_a'));
		await backend.accept({...newEvent('evt_b', 'ignored'), event: 'platform.chat.user-message.created', note: 'user message logged'});
		await backend.start(async () => Promise.resolve({status: 'failed', error: 'model down'}), {concurrency: 2});
		await backend.stop(1000);
		expect((await backend.list({})).map(event => event.id)).toEqual(['evt_b', 'evt_a']);
		expect((await backend.list({status: 'failed'})).map(event => event.id)).toEqual(['evt_a']);
		expect((await backend.list({type: 'user-message.created'})).map(event => event.id)).toEqual(['evt_b']);
		expect(await backend.replay('evt_a', async () => Promise.resolve({status: 'answered'}))).toEqual({outcome: 'done', result: {status: 'answered'}});
		expect(await backend.get('evt_a')).toMatchObject({status: 'answered', attempts: 2, steps: []});
		expect(await backend.replay('evt_zzz', async () => Promise.resolve({status: 'answered'}))).toEqual({outcome: 'unknown', near: []});
	});

	it('offers the five stored ids closest to an unknown one, closest first', async () => {
		const backend = createMemoryBackend();
		for (const id of ['evt_0001', 'evt_0002', 'evt_0003', 'evt_0004', 'evt_0013', 'evt_0014', 'evt_9999x9']) {
			await backend.accept(newEvent(id, 'ignored'));
		}

		expect(await backend.near('evt_0000')).toEqual(['evt_0001', 'evt_0002', 'evt_0003', 'evt_0004', 'evt_0013']);
		expect(await backend.near('evt_0012')).toEqual(['evt_0002', 'evt_0013', 'evt_0014', 'evt_0001', 'evt_0003']);
	});

	it('cuts off jobs at the drain deadline through their signal', async () => {
		const backend = createMemoryBackend({abortGraceMs: 5000});
		await backend.accept(newEvent('evt_slow'));
		const reasons: unknown[] = [];
		await backend.start(async ({signal}) => new Promise(resolve => {
			signal.addEventListener('abort', () => {
				reasons.push(signal.reason);
				resolve({status: 'failed', error: 'cut off'});
			});
		}), {concurrency: 1});
		expect(await backend.stop(20)).toEqual({cutOff: 1});
		expect(reasons[0]).toBeInstanceOf(DrainTimeoutError);
		expect(await backend.get('evt_slow')).toMatchObject({status: 'failed', error: 'cut off'});
	});
});
