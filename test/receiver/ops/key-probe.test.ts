/**
 * serve's key probe: GET /openai/models (no chat to name), answered by the local platform in both
 * answer modes. Only 401 means the key is refused; a 403 (a platform that checks something per
 * user) is the platform answering, and 429/5xx is the platform unavailable.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PlatformClient} from '../../../source/platform/client.js';
import {probePlatform} from '../../../source/receiver/ops/platform-probe.js';
import {clientFor, startPlatform, type TestPlatform} from '../../support/platform.js';
import {startRecordingServer} from '../../support/recording-server.js';

describe('the key probe against the local platform', () => {
	for (const answers of ['full', 'sparse'] as const) {
		describe(`--answers ${answers}`, () => {
			let platform: TestPlatform;

			beforeAll(async () => {
				platform = await startPlatform({answers});
			});

			afterAll(async () => {
				await platform.close();
			});

			it('GET /openai/models lists the models; the probe reads it and names no chat', async () => {
				const client = clientFor(platform.platform);
				try {
					expect(await client.listModels()).toEqual({models: ['AZURE_GPT_4o_2024_1120']});
					const before = platform.platform.requests.length;
					expect(await probePlatform(client)).toEqual({ok: true});
					const probes = platform.platform.requests.slice(before);
					expect(probes.map(record => `${record.method} ${record.path}`)).toEqual(['GET /openai/models']);
				} finally {
					await client.close();
				}
			});

			it('a wrong key is refused with 401: key-rejected', async () => {
				const client = clientFor(platform.platform, {apiKey: () => 'sk_live_not_a_key_000000000000', retries: 0});
				try {
					expect(await probePlatform(client)).toMatchObject({ok: false, code: 'key-rejected'});
				} finally {
					await client.close();
				}
			});
		});
	}
});

describe('the key probe: what each refusal means', () => {
	it('403 is an answer (ready), 401 is a refused key, 503 is unavailable', async () => {
		const server = await startRecordingServer();
		const client = new PlatformClient({baseUrl: server.url, apiKey: () => 'sk_live_probe_key_0000000000', appId: 'app', userId: 'user', companyId: 'company', retries: 0, timeoutMs: 5000});
		try {
			server.enqueue({status: 403, body: {error: 'FORBIDDEN'}});
			expect(await probePlatform(client)).toEqual({ok: true});
			server.enqueue({status: 401, body: {error: 'UNAUTHORIZED'}});
			expect(await probePlatform(client)).toMatchObject({ok: false, code: 'key-rejected'});
			server.enqueue({status: 503, body: {error: 'DOWN'}});
			expect(await probePlatform(client)).toMatchObject({ok: false, code: 'unavailable'});
			expect(server.requests.map(request => `${request.method} ${request.path}`)).toEqual(Array.from({length: 3}, () => 'GET /openai/models'));
		} finally {
			await client.close();
			await server.close();
		}
	});
});
