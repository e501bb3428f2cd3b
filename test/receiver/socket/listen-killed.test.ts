/**
 * listen killed with -9 while it runs, then started again on the same data directory: no event is
 * forwarded twice, and the downtime (when the platform's events went nowhere) is reported as a gap.
 */
import {expect, it} from 'vitest';
import {platformEnv} from '../../support/platform.js';
import {startCli} from '../../support/cli.js';
import {waitFor} from '../../support/wait.js';
import {countingHandler, dataDirectory, publishAtPace, socketPlatform, userEvent} from './listen-support.js';
import {closersAfterEach} from '../../support/cleanups.js';

const cleanups = closersAfterEach();

type Record = {type: string; [field: string]: unknown};

const records = (stdout: string): Record[] => stdout.split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record);

it('after kill -9 and a restart, none is forwarded twice and the downtime is a gap', async () => {
	const test = await socketPlatform(cleanups, 60_000, 50);
	const handler = await countingHandler(cleanups);
	const directory = await dataDirectory(cleanups);
	const args = ['listen', '--json', '--forward-to', handler.url, '--data-dir', directory, '--reconnect-every', '30s', '--overlap', '200ms', '--socket-backoff', '50', '--forward-backoff', '5'];
	const env = platformEnv(test.platform);
	const first = startCli(args, {env});
	cleanups.push(async () => {
		first.child.kill('SIGKILL');
		await first.closed;
	});
	await waitFor(() => test.platform.publishEvent(userEvent('evt_first_probe', test)) > 0, {what: 'the first listen\'s live stream'});
	const before = await publishAtPace(test, {perSecond: 50, seconds: 1, prefix: 'evt_before'});
	// Killed once their forwards are recorded as done (the `answered` stage follows the stored step):
	// a forward killed between the handler's 2xx and that record is sent again, with the same webhook-id.
	await waitFor(() => {
		const answered = new Set(records(first.stdout()).filter(record => record.type === 'stage' && record.stage === 'answered').map(record => record.eventId));
		return [...before.keys()].every(id => answered.has(id));
	}, {what: 'the events before the kill forwarded and recorded'});
	first.child.kill('SIGKILL');
	await first.closed;
	const killedAt = Date.now();
	await waitFor(() => test.platform.eventSocket.open === 0, {what: 'the platform to see the stream gone'});
	expect(test.platform.publishEvent(userEvent('evt_while_down', test))).toBe(0);

	const second = startCli(args, {env});
	cleanups.push(async () => {
		second.child.kill('SIGTERM');
		await second.closed;
	});
	const gap = await waitFor(() => records(second.stdout()).find(record => record.type === 'gap'), {what: 'the downtime gap'});
	expect(gap).toMatchObject({downtime: true});
	expect(Date.parse(String(gap.from))).toBeLessThanOrEqual(killedAt);
	expect(Date.parse(String(gap.to))).toBeGreaterThan(killedAt);
	const after = await publishAtPace(test, {perSecond: 50, seconds: 1, prefix: 'evt_after'});
	await waitFor(() => [...after.keys()].every(id => handler.counts.get(id) === 1), {what: 'the events after the restart forwarded'});
	expect([...handler.counts.entries()].filter(([, count]) => count !== 1)).toEqual([]);
	expect(handler.counts.has('evt_while_down')).toBe(false);
	second.child.kill('SIGTERM');
	// Like serve: a stop that drained cleanly exits 0.
	expect(await second.closed).toBe(0);
	expect(records(second.stdout()).at(-1)).toMatchObject({type: 'result'});
});
