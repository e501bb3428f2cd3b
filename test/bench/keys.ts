/**
 * Key supplier benchmark: every platform call reads the API key afresh from the config file so a
 * key rotated by another process is used at once. What does that cost?
 *
 * 1. The supplier alone: microseconds per read (file read + JSON parse) against a constant key.
 * 2. Whole requests to the local platform over loopback, side by side in one run: a client with
 *    a constant key versus one with the file-reading supplier, same workload, interleaved rounds.
 * 3. A rotation in the middle of a request stream: calls that failed (must be 0).
 *
 * Run: node --import tsx test/bench/keys.ts
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {apiKeySupplier} from '../../source/config/resolve.js';
import {ConfigStore} from '../../source/config/store.js';
import {rotateApiKey} from '../../source/keys/rotate.js';
import {startLocalPlatform} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';

const dir = mkdtempSync(join(tmpdir(), 'platform-tui-bench-keys-'));
const env = {PLATFORM_TUI_CONFIG_DIR: dir};
const store = new ConfigStore(env);
const platform = await startLocalPlatform({keyOverlapMs: 60_000});

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

try {
	await store.setMany({
		baseUrl: platform.baseUrl,
		appId: platform.appId,
		userId: platform.userId,
		companyId: platform.companyId,
		assistantId: platform.assistantId,
		apiKey: platform.apiKey,
		rotation: {lastRotatedAt: new Date().toISOString()},
	});

	// 1. The supplier alone.
	const supplier = apiKeySupplier({env, store, fallback: 'unused'});
	const constant = platform.apiKey;
	const fixed = () => constant;
	const reads = 20_000;
	for (let index = 0; index < 2000; index++) {
		supplier();
	}

	let started = performance.now();
	for (let index = 0; index < reads; index++) {
		if (supplier() !== constant) {
			throw new Error('supplier returned another key');
		}
	}

	const supplierUs = ((performance.now() - started) * 1000) / reads;
	started = performance.now();
	for (let index = 0; index < reads; index++) {
		if (fixed() !== constant) {
			throw new Error('unreachable');
		}
	}

	const fixedUs = ((performance.now() - started) * 1000) / reads;
	console.log(`supplier read (config file, fresh every call): ${supplierUs.toFixed(1)} µs/call over ${reads} calls (constant key: ${fixedUs.toFixed(3)} µs/call)`);

	// 2. Whole requests, side by side.
	const settings = {baseUrl: platform.baseUrl, appId: platform.appId, userId: platform.userId, companyId: platform.companyId, retries: 0};
	const withConstant = new PlatformClient({...settings, apiKey: constant});
	const withSupplier = new PlatformClient({...settings, apiKey: supplier});
	const perRound = 400;
	const rounds = 6;
	const timings: Record<'constant' | 'supplier', number[]> = {constant: [], supplier: []};
	const runRound = async (client: PlatformClient): Promise<number> => {
		const begin = performance.now();
		for (let index = 0; index < perRound; index++) {
			await client.getSpace(platform.assistantId);
		}

		return (performance.now() - begin) / perRound;
	};

	await runRound(withConstant);
	await runRound(withSupplier);
	for (let round = 0; round < rounds; round++) {
		// Alternate the order so neither side always runs warm.
		const order: Array<['constant' | 'supplier', PlatformClient]> = round % 2 === 0
			? [['constant', withConstant], ['supplier', withSupplier]]
			: [['supplier', withSupplier], ['constant', withConstant]];
		for (const [name, client] of order) {
			timings[name].push(await runRound(client));
		}
	}

	const constantMs = median(timings.constant);
	const supplierMs = median(timings.supplier);
	console.log(`sequential GET /space over loopback, median of ${rounds} rounds × ${perRound}: constant key ${constantMs.toFixed(3)} ms/request, file-reading supplier ${supplierMs.toFixed(3)} ms/request`);
	console.log(`ratio supplier/constant: ${(supplierMs / constantMs).toFixed(3)} (the supplier's share of a request: ${((supplierUs / 1000 / supplierMs) * 100).toFixed(1)} %)`);

	// 3. A rotation in the middle of a stream of concurrent calls.
	let failures = 0;
	let calls = 0;
	let stop = false;
	const worker = async () => {
		while (!stop && calls < 20_000) {
			calls++;
			try {
				await withSupplier.getSpace(platform.assistantId);
			} catch {
				failures++;
			}
		}
	};

	const workers = Array.from({length: 8}, async () => worker());
	await new Promise(resolve => {
		setTimeout(resolve, 300);
	});
	const rotator = new PlatformClient({...settings, apiKey: supplier});
	const outcome = await rotateApiKey({client: rotator, store, env});
	await new Promise(resolve => {
		setTimeout(resolve, 300);
	});
	stop = true;
	await Promise.all(workers);
	await rotator.close();
	const usedNew = platform.requests.filter(request => request.headers.authorization === `Bearer ${outcome.newKey}`).length;
	console.log(`rotation under load (8 concurrent callers, ${calls} calls): ${failures} failed calls; ${usedNew > 0 ? 'callers switched to the new key' : 'callers did NOT switch'} (stored: ${String(outcome.stored)})`);

	// 4. What the lock costs: a locked write (lock, read, merge, atomic write, unlock), and
	// rotations started together in one process, which the lock runs one after another.
	const writes = 300;
	started = performance.now();
	for (let index = 0; index < writes; index++) {
		await store.set('model', `MODEL_${index}`);
	}

	const writeMs = (performance.now() - started) / writes;
	const together = 6;
	started = performance.now();
	const chained = await Promise.all(Array.from({length: together}, async () => {
		const client = new PlatformClient({...settings, apiKey: supplier});
		try {
			return await rotateApiKey({client, store, env});
		} finally {
			await client.close();
		}
	}));
	const chainMs = performance.now() - started;
	const chain = new Set(chained.map(entry => entry.previousKeyMasked)).size === together && store.get('apiKey') === platform.apiKey;
	console.log(`locked config write: ${writeMs.toFixed(2)} ms/write over ${writes}; ${together} rotations started together: ${chainMs.toFixed(0)} ms in all, ${chain ? 'one chain, the newest key stored' : 'NOT one chain'}`);
	await withConstant.close();
	await withSupplier.close();
	if (failures > 0 || usedNew === 0 || !chain) {
		process.exitCode = 1;
	}
} finally {
	await platform.close();
	rmSync(dir, {recursive: true, force: true});
}
