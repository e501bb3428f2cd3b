/**
 * serve as an operated service: /readyz follows the store, the platform's key and the drain;
 * /metrics parses as Prometheus text and its counters move with deliveries; --exit-on-unready
 * exits non-zero.
 */
import {spawnSync} from 'node:child_process';
import {chmodSync} from 'node:fs';
import path from 'node:path';
import {request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import serveCommand from '../../source/commands/serve/serve.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {unwritableReason} from '../../source/receiver/journal/open/writable.js';
import {createReceiver} from '../../source/receiver/server.js';
import {createService, type Service} from '../../source/receiver/service.js';
import {tempDataDir} from './journal/helpers.js';
import {platformEnv, clientFor, startPlatform} from '../support/platform.js';
import {parsePrometheusText, sampleValue} from '../support/prom-text.js';
import {runCommand} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';
import {newEventId, sendSigned, userMessageEvent} from './helpers.js';

let platform: LocalPlatform;

beforeAll(async () => {
	platform = (await startPlatform()).platform;
});

afterAll(async () => {
	await platform.close();
});

async function get(url: string): Promise<{status: number; text: string; json: () => Record<string, unknown>}> {
	const response = await request(url);
	const text = await response.body.text();
	return {status: response.statusCode, text, json: () => JSON.parse(text) as Record<string, unknown>};
}

/** Makes a directory refuse new files: chmod for a user, the immutable flag for root (undefined: neither works here). */
function lockDirectory(directory: string): (() => void) | undefined {
	chmodSync(directory, 0o555);
	if (unwritableReason(directory) !== undefined) {
		return () => {
			chmodSync(directory, 0o755);
		};
	}

	chmodSync(directory, 0o755);
	if (spawnSync('chattr', ['+i', directory]).status === 0 && unwritableReason(directory) !== undefined) {
		return () => {
			spawnSync('chattr', ['-i', directory]);
		};
	}

	spawnSync('chattr', ['-i', directory]);
	return undefined;
}

async function startServe(options: {key: {value: string}; probeIntervalMs?: number}) {
	const directory = tempDataDir();
	const backend = await openJournal({directory});
	const client = clientFor(platform, {apiKey: () => options.key.value, retries: 0});
	const service: Service = createService({backend, client, probeIntervalMs: options.probeIntervalMs ?? 50, failingProbeIntervalMs: options.probeIntervalMs ?? 50, storeIntervalMs: 50});
	const receiver = createReceiver({client, secrets: [platform.endpointSecret], backend, observer: service.observer, callWatcher: service.callWatcher, maxBacklog: 100});
	const {url} = await receiver.listen({port: 0});
	await service.attach(receiver);
	const admin = await service.listenAdmin({port: 0, host: '127.0.0.1'});
	return {
		directory,
		url,
		admin: admin.url,
		service,
		receiver,
		async close() {
			await receiver.close(1000);
			await service.stop();
			await client.close();
		},
	};
}

describe('the admin listener', () => {
	it('MUST-SHOW: /readyz turns 503 when the journal cannot be written, the platform answers 401, and while draining; back to 200 after', async () => {
		const key = {value: platform.apiKey};
		const serve = await startServe({key});
		try {
			expect((await get(`${serve.admin}/livez`)).status).toBe(200);
			await waitFor(async () => (await get(`${serve.admin}/readyz`)).status, {until: status => status === 200, what: 'ready'});
			expect((await get(`${serve.admin}/readyz`)).json()).toEqual({ready: true});

			// The journal's directory stops taking files.
			const unlock = lockDirectory(path.join(serve.directory, 'journal'));
			if (unlock) {
				try {
					const locked = await get(`${serve.admin}/readyz`);
					expect(locked.status).toBe(503);
					expect(locked.json()).toMatchObject({ready: false, reasons: [expect.stringContaining('store: the journal in')]});
				} finally {
					unlock();
				}

				expect((await get(`${serve.admin}/readyz`)).status).toBe(200);
			} else {
				console.log('The journal directory could not be made read-only here (neither chmod nor chattr): that step is left out.');
			}

			// The platform rejects the key: the status says so with the next step.
			key.value = 'sk_live_not_a_key_000000000000';
			const rejected = await waitFor(async () => get(`${serve.admin}/readyz`), {until: answer => answer.status === 503, what: '503 on a rejected key'});
			expect(rejected.json()).toMatchObject({ready: false, reasons: [expect.stringContaining('platform: the API key was rejected')]});
			expect(serve.service.health.state().dependencies.platform).toMatchObject({ok: false, code: 'key-rejected'});
			key.value = platform.apiKey;
			await waitFor(async () => (await get(`${serve.admin}/readyz`)).status, {until: status => status === 200, what: 'ready again'});

			// Draining: 503 from the moment the drain starts.
			const closing = serve.receiver.close(1000);
			const draining = await get(`${serve.admin}/readyz`);
			expect(draining.status).toBe(503);
			expect(draining.json()).toMatchObject({ready: false, reasons: expect.arrayContaining([expect.stringContaining('draining')]) as unknown});
			await closing;
		} finally {
			await serve.close();
		}
	});

	it('MUST-SHOW: /metrics parses as Prometheus text and its counters move as deliveries arrive', async () => {
		const serve = await startServe({key: {value: platform.apiKey}, probeIntervalMs: 30_000});
		try {
			const before = parsePrometheusText((await get(`${serve.admin}/metrics`)).text);
			for (const family of ['platform_tui_deliveries_total', 'platform_tui_events_total', 'platform_tui_ack_latency_seconds', 'platform_tui_processing_duration_seconds', 'platform_tui_backlog_events', 'platform_tui_backlog_oldest_age_seconds', 'platform_tui_platform_calls_total', 'platform_tui_platform_call_duration_seconds', 'platform_tui_retries_total', 'platform_tui_store_commit_duration_seconds', 'platform_tui_journal_size_bytes', 'platform_tui_ready', 'process_cpu_seconds_total']) {
				expect(before.has(family), family).toBe(true);
			}

			expect(before.get('platform_tui_ack_latency_seconds')?.type).toBe('histogram');
			const event = userMessageEvent({id: newEventId()});
			expect((await sendSigned(`${serve.url}/webhook`, event, platform.endpointSecret)).status).toBe(200);
			expect((await sendSigned(`${serve.url}/webhook`, event, platform.endpointSecret)).status).toBe(200);
			expect((await sendSigned(`${serve.url}/webhook`, userMessageEvent(), 'whsec_wrong')).status).toBe(400);
			const after = parsePrometheusText((await get(`${serve.admin}/metrics`)).text);
			const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
			expect(delta('platform_tui_deliveries_total', {outcome: 'accepted'})).toBe(1);
			expect(delta('platform_tui_deliveries_total', {outcome: 'duplicate'})).toBe(1);
			expect(delta('platform_tui_deliveries_total', {outcome: 'signature-mismatch'})).toBe(1);
			expect(delta('platform_tui_events_total', {type: 'platform.chat.user-message.created', status: 'logged'})).toBe(1);
			expect(delta('platform_tui_ack_latency_seconds_count', {})).toBe(2);
			// Every call to the store is timed: the duplicate's look-up too.
			expect(delta('platform_tui_store_commit_duration_seconds_count', {backend: 'journal'})).toBe(2);
			expect(sampleValue(after, 'platform_tui_journal_size_bytes')).toBeGreaterThan(0);
			expect(sampleValue(after, 'platform_tui_ready')).toBe(1);
		} finally {
			await serve.close();
		}
	});
});

describe('serve --exit-on-unready', () => {
	it('MUST-SHOW: exits 1 after not being ready that long (a rejected key), saying why and what to do', async () => {
		const result = await runCommand(serveCommand, {
			flags: {port: '0', exitOnUnready: '1', json: true, drainTimeout: '1'},
			env: platformEnv(platform, {PLATFORM_API_KEY: 'sk_live_not_a_key_000000000000'}),
		});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('serve was not ready for 1s');
		const records = result.stdout.split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
		expect(records[0]).toMatchObject({type: 'listening', maxBacklog: 10_000});
		expect(records.find(record => record.type === 'status')).toMatchObject({status: 'degraded', dependencies: {platform: {ok: false, code: 'key-rejected'}}, next: expect.stringContaining('keys rotate') as unknown});
	});
});
