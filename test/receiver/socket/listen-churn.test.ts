/**
 * The must-show: streams closed every 2 s with 0.3 s to go live, 50 events a second for
 * 60 s, and listen forwarding every event once, none twice, with no gap reported. It mostly waits
 * (3 000 small events), so it overlaps the rest of the suite: @start-first.
 */
import {expect, it} from 'vitest';
import {waitFor} from '../../support/wait.js';
import {countingHandler, dataDirectory, publishAtPace, socketPlatform, startListen, userEvent} from './listen-support.js';
import {closersAfterEach} from '../../support/cleanups.js';

const cleanups = closersAfterEach();

it('streams closed every 2 s (0.3 s to go live), 50 events/s for 60 s: every event forwarded once, none twice, no gap', async () => {
	const test = await socketPlatform(cleanups, 2000, 300);
	const handler = await countingHandler(cleanups);
	const listening = startListen(test, {forwardTo: handler.url, dataDir: await dataDirectory(cleanups)}, cleanups);
	await waitFor(() => test.platform.publishEvent(userEvent('evt_ready', test)) > 0, {what: 'a live stream'});
	const published = await publishAtPace(test, {perSecond: 50, seconds: 60, prefix: 'evt_churn'});
	const ids = [...published.keys()];
	await waitFor(() => ids.filter(id => handler.counts.get(id) === undefined).length, {until: missing => missing === 0, what: 'every event forwarded', timeoutMs: 120_000});
	expect(ids.filter(id => handler.counts.get(id) !== 1)).toEqual([]);
	expect([...handler.counts.values()].filter(count => count !== 1)).toEqual([]);
	expect(listening.ofType('gap')).toEqual([]);
	// The platform closed streams under it all along: listen opened a fresh one each time before.
	expect(test.platform.eventSocket.opened).toBeGreaterThanOrEqual(30);
	expect(listening.ofType('stream-closed').filter(record => record.reason === 'closed' && record.live === true)).toEqual([]);
}, 240_000);
