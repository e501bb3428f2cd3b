/**
 * `events list/show/replay --redis` in-process against a real Redis (its own server: the commands
 * use the default queue), and the same JSON shape as the embedded journal for the same event.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import listCommand from '../../../source/commands/events/list.js';
import replayCommand from '../../../source/commands/events/replay.js';
import showCommand from '../../../source/commands/events/show.js';
import type {EventBackend, JobHandler} from '../../../source/receiver/store/backend.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {runCommand} from '../../support/run-command.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen, statusOf} from './events.js';

const failingId = 'evt_cmd0000000000000000000001';
const failing: JobHandler = async job => {
	await job.recordStep({name: 'failing', at: new Date().toISOString(), error: 'the platform answered 503'});
	return {status: 'failed', error: 'the platform answered 503'};
};

function jsonLines(text: string): Array<Record<string, unknown>> {
	return text.trim().split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Record<string, unknown>);
}

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('events commands with --redis', () => {
	let redis: TestRedis;
	let platform: TestPlatform;
	let directory: string;
	let replica: EventBackend;
	let failNext = true;
	const seen: Seen[] = [];

	beforeAll(async () => {
		redis = await startRedis({forceLocal: true});
		platform = await startPlatform();
		directory = mkdtempSync(join(tmpdir(), 'platform-tui-redis-commands-'));
		const event = newEvent(failingId, {headers: {'x-platform-signature': 'sha256=feedfacecafebeef0123456789abcdef'}});

		// The same event, failed once, in the journal …
		const journal = await openJournal({directory});
		await journal.accept(event);
		await journal.replay(failingId, failing);
		await journal.close();

		// … and in Redis, through a replica whose first answer fails and whose later ones succeed.
		replica = await openRedisBackend({url: redis.url, lockDurationMs: 1000, stalledIntervalMs: 500});
		const answering = recordingHandler(seen);
		await replica.start(async job => {
			if (failNext) {
				failNext = false;
				return failing(job);
			}

			return answering(job);
		}, {concurrency: 1});
		expect(await replica.accept(event)).toBe('stored');
		await waitFor(async () => (await statusOf(replica, failingId)) === 'failed', {what: 'the failed answer'});
	});

	afterAll(async () => {
		await replica.close();
		await platform.close();
		await redis.stop();
		rmSync(directory, {recursive: true, force: true});
	});

	it('lists and shows the event with the same JSON keys as the journal', async () => {
		const viaRedis = await runCommand(listCommand, {flags: {redis: redis.url, json: true}});
		const viaJournal = await runCommand(listCommand, {flags: {dataDir: directory, json: true}});
		expect(viaRedis.code, viaRedis.stderr).toBe(0);
		expect(viaJournal.code, viaJournal.stderr).toBe(0);
		const [redisLine] = jsonLines(viaRedis.stdout).filter(line => line.id === failingId);
		const [journalLine] = jsonLines(viaJournal.stdout).filter(line => line.id === failingId);
		expect(redisLine).toMatchObject({id: failingId, status: 'failed'});
		expect(Object.keys(redisLine ?? {}).sort()).toEqual(Object.keys(journalLine ?? {}).sort());

		const shownRedis = await runCommand(showCommand, {argv: [failingId], flags: {redis: redis.url, json: true}});
		const shownJournal = await runCommand(showCommand, {argv: [failingId], flags: {dataDir: directory, json: true}});
		expect(shownRedis.code, shownRedis.stderr).toBe(0);
		const detailRedis = JSON.parse(shownRedis.stdout) as Record<string, unknown>;
		const detailJournal = JSON.parse(shownJournal.stdout) as Record<string, unknown>;
		expect(detailRedis).toMatchObject({id: failingId, status: 'failed', error: 'the platform answered 503', attempts: 1});
		expect(Object.keys(detailRedis).sort()).toEqual(Object.keys(detailJournal).sort());
		// The signature is masked the same way.
		expect(detailRedis.headers).toEqual(detailJournal.headers);
		expect(shownRedis.stdout).not.toContain('feedfacecafebeef0123456789abcdef');

		const plain = await runCommand(showCommand, {argv: [failingId], flags: {redis: redis.url}});
		expect(plain.code, plain.stderr).toBe(0);
		expect(plain.stdout).toContain(failingId);
		expect(plain.stdout).toContain('the platform answered 503');
	});

	it('replays the failed event: re-queued, answered by the replica on its second attempt', async () => {
		const result = await runCommand(replayCommand, {argv: [failingId], flags: {redis: redis.url, json: true}, env: platform.env()});
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout.trim().split('\n').map(line => JSON.parse(line) as unknown)).toEqual([{type: 'replay', id: failingId, status: 'queued'}, {type: 'summary', total: 1, done: 0, failed: 0, skipped: 0, queued: 1, notReplayable: 0}]);
		await waitFor(async () => (await statusOf(replica, failingId)) === 'answered', {what: 'the replayed answer'});
		expect(seen.map(item => item.id)).toEqual([failingId]);
		const shown = await runCommand(showCommand, {argv: [failingId], flags: {redis: redis.url, json: true}});
		expect(JSON.parse(shown.stdout)).toMatchObject({status: 'answered', attempts: 2});

		const unknown = await runCommand(replayCommand, {argv: ['evt_cmd0000000000000000000002'], flags: {redis: redis.url}, env: platform.env()});
		expect(unknown.code).toBe(1);
		expect(unknown.error).toMatchObject({code: 'journal-event-unknown', data: {id: 'evt_cmd0000000000000000000002', near: [failingId]}});
	});
});
