/** `events replay` over many events: filters, --dry-run, ids given twice, held events skipped and counted, exit 1 on a failure. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import replayCommand from '../../../source/commands/events/replay.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {runCommand} from '../../support/run-command.js';
import {sendJson, startRecordingServer, type RecordingServer} from '../../support/recording-server.js';
import {newEvent, startHolder, tempDataDir, type Holder} from './helpers.js';

let directory: string;
let handler: RecordingServer;
const failing = new Set<string>();
const env = {PLATFORM_BASE_URL: 'http://127.0.0.1:9', PLATFORM_API_KEY: 'sk_test_key', PLATFORM_APP_ID: 'app_test', PLATFORM_ENDPOINT_SECRET: 'whsec_replay'};
const ids = {failedA: 'evt_fail000000000000000000000a', failedB: 'evt_fail000000000000000000000b', failedOld: 'evt_fail00000000000000000000old', answered: 'evt_done000000000000000000000a'};

beforeAll(async () => {
	directory = tempDataDir();
	handler = await startRecordingServer({handler: (request, response) => {
		sendJson(response, failing.has(String(request.headers['x-platform-id'])) ? 500 : 200, {});
	}});
	const journal = await openJournal({directory});
	const now = Date.now();
	for (const [id, ageMs, status] of [[ids.failedA, 60_000, 'failed'], [ids.failedB, 120_000, 'failed'], [ids.failedOld, 3 * 3_600_000, 'failed'], [ids.answered, 60_000, 'answered']] as const) {
		await journal.accept(newEvent({id, receivedAt: new Date(now - ageMs).toISOString(), headers: {'x-platform-id': id}}));
		await journal.replay(id, async () => Promise.resolve({status, ...(status === 'failed' ? {error: 'the platform answered 503'} : {})}));
	}

	await journal.close();
});

afterAll(async () => {
	await handler.close();
});

describe('events replay with filters', () => {
	it('MUST-SHOW: --dry-run lists what the filters select and sends nothing', async () => {
		const result = await runCommand(replayCommand, {flags: {dataDir: directory, status: 'failed', since: '1h', dryRun: true, forwardTo: handler.url, json: true}, env});
		expect(result.code).toBe(0);
		const lines = result.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		expect(lines.filter(line => line.type === 'would-replay').map(line => line.id).sort()).toEqual([ids.failedA, ids.failedB]);
		expect(lines.at(-1)).toMatchObject({type: 'summary', dryRun: true, wouldReplay: 2});
		expect(handler.requests).toHaveLength(0);
	});

	it('MUST-SHOW: replays the filtered events, an id given twice once, skips and counts one held elsewhere, and exits 1 when one fails', async () => {
		let holder: Holder | undefined;
		try {
			// The holder is processing failedB (so --status failed no longer selects it): named, it is skipped.
			holder = await startHolder(directory, 'replay', ids.failedB);
			failing.add(ids.failedOld);
			const result = await runCommand(replayCommand, {argv: [ids.failedOld, ids.failedOld, ids.failedB], flags: {dataDir: directory, status: 'failed', since: '1h', forwardTo: handler.url, forwardRetries: '0', concurrency: '2', json: true}, env});
			const lines = result.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
			const byId = new Map(lines.filter(line => line.type === 'replay').map(line => [line.id, line.status]));
			expect(lines.filter(line => line.type === 'replay')).toHaveLength(3);
			expect(byId).toEqual(new Map([[ids.failedA, 'answered'], [ids.failedB, 'skipped'], [ids.failedOld, 'failed']]));
			expect(lines.at(-1)).toEqual({type: 'summary', total: 3, done: 1, failed: 1, skipped: 1, queued: 0, notReplayable: 0});
			expect(result.code).toBe(1);
			expect(handler.requests.filter(request => request.headers['x-platform-id'] === ids.failedOld)).toHaveLength(1);
			expect(handler.requests.some(request => request.headers['x-platform-id'] === ids.failedB)).toBe(false);
		} finally {
			await holder?.kill();
			failing.clear();
		}
	});

	it('asks for ids or a filter', async () => {
		const result = await runCommand(replayCommand, {flags: {dataDir: directory}, env});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('Name the events or filter them');
	});
});
