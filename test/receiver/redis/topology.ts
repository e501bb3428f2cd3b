/**
 * Redis topologies for the Cluster and Sentinel suites, started on loopback ports: three
 * cluster-enabled masters with the slots assigned by `redis-cli --cluster create`, and a primary
 * with replicas watched by a Sentinel.
 */
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Redis} from 'ioredis';
import {freePort} from '../../support/free-port.js';
import {startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';

export type TestCluster = {url: string; nodes: TestRedis[]; stop(): Promise<void>};

async function info(port: number, section: string): Promise<string> {
	const client = new Redis({port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null});
	try {
		await client.connect();
		return section === 'cluster' ? String(await client.call('CLUSTER', 'INFO')) : await client.info(section);
	} catch {
		return '';
	} finally {
		client.disconnect();
	}
}

export async function startCluster(masters = 3): Promise<TestCluster> {
	const nodes: TestRedis[] = [];
	for (let index = 0; index < masters; index++) {
		nodes.push(await startRedis({forceLocal: true, appendonly: true, args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000']}));
	}

	const addresses = nodes.map(node => `127.0.0.1:${String(node.port)}`);
	const created = spawnSync('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {encoding: 'utf8', timeout: 60_000});
	if (created.status !== 0) {
		await Promise.all(nodes.map(async node => node.stop()));
		throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
	}

	for (const node of nodes) {
		await waitFor(async () => (await info(node.port ?? 0, 'cluster')).includes('cluster_state:ok'), {intervalMs: 100, what: `cluster node ${String(node.port)} to be ok`});
	}

	return {
		url: `redis+cluster://${addresses.join(',')}`,
		nodes,
		async stop() {
			await Promise.all(nodes.map(async node => node.stop()));
		},
	};
}

export type TestSentinel = {
	url: string;
	primary: TestRedis;
	replicas: TestRedis[];
	/** The port Sentinel names as the primary now. */
	primaryPort(): Promise<number | undefined>;
	stop(): Promise<void>;
};

/** A primary with `replicaCount` replicas (AOF on each) and one Sentinel (quorum 1) that fails over within a few seconds. */
export async function startSentinel(replicaCount = 1, masterName = 'events-primary'): Promise<TestSentinel> {
	const primary = await startRedis({forceLocal: true, appendonly: true});
	const replicas: TestRedis[] = [];
	for (let index = 0; index < replicaCount; index++) {
		replicas.push(await startRedis({forceLocal: true, appendonly: true, args: ['--replicaof', '127.0.0.1', String(primary.port)]}));
	}

	await waitFor(async () => (await info(primary.port ?? 0, 'replication')).split('state=online').length - 1 >= replicaCount, {intervalMs: 100, what: 'the replicas to be online'});
	const dir = mkdtempSync(join(tmpdir(), 'platform-tui-sentinel-'));
	const port = await freePort();
	const config = join(dir, 'sentinel.conf');
	writeFileSync(config, [
		`port ${String(port)}`,
		'bind 127.0.0.1',
		`dir ${dir}`,
		`sentinel monitor ${masterName} 127.0.0.1 ${String(primary.port)} 1`,
		`sentinel down-after-milliseconds ${masterName} 1000`,
		`sentinel failover-timeout ${masterName} 5000`,
		`sentinel parallel-syncs ${masterName} 1`,
		'',
	].join('\n'));
	const sentinel = spawn('redis-server', [config, '--sentinel'], {stdio: 'ignore'});
	const exited = new Promise(resolve => sentinel.once('exit', resolve));
	const ask = async (): Promise<number | undefined> => {
		const client = new Redis({port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null});
		try {
			await client.connect();
			const reply = await client.call('SENTINEL', 'get-master-addr-by-name', masterName) as string[] | null;
			return reply?.[1] === undefined ? undefined : Number(reply[1]);
		} catch {
			return undefined;
		} finally {
			client.disconnect();
		}
	};

	await waitFor(ask, {intervalMs: 100, what: 'Sentinel to name the primary'});
	return {
		url: `redis+sentinel://127.0.0.1:${String(port)}/${masterName}`,
		primary,
		replicas,
		primaryPort: ask,
		async stop() {
			if (sentinel.exitCode === null && sentinel.signalCode === null) {
				sentinel.kill('SIGKILL');
				await exited;
			}

			await Promise.all([primary, ...replicas].map(async node => node.stop()));
			rmSync(dir, {recursive: true, force: true});
		},
	};
}
