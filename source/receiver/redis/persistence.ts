/**
 * Whether Redis keeps an acknowledged event across a crash of redis-server, and never drops it on
 * its own. That takes AOF (`appendonly yes`, any `appendfsync`): RDB snapshots alone lose every
 * job added since the last snapshot (up to an hour with Redis's default `save` schedule). And it
 * takes `maxmemory-policy noeviction`: any other policy lets Redis evict queued jobs silently when
 * it runs out of memory. Checked through `CONFIG GET` when serve opens the backend and again every
 * few seconds after; a managed Redis that renames or forbids CONFIG gives `unknown` with the
 * reason and what to check by hand, never a failure.
 */
import type {Cluster} from 'ioredis';
import type {RedisClient} from './connection.js';
import {errorMessage} from '../../format/value.js';
import type {DurabilityProblem, StoreDurability} from '../store/backend.js';

/** What an operator of a Redis that forbids CONFIG checks by hand. */
export const checkByHand = 'check by hand that AOF is on (appendonly yes) and maxmemory-policy is noeviction';

/** The value of one setting from a CONFIG GET reply (`[name, value]`), or undefined when it is not there. */
function configValue(reply: unknown, name: string): string | undefined {
	if (!Array.isArray(reply)) {
		return undefined;
	}

	const index = reply.findIndex(item => String(item).toLowerCase() === name);
	const value: unknown = index === -1 ? undefined : reply[index + 1];
	return typeof value === 'string' ? value : (Buffer.isBuffer(value) ? value.toString('utf8') : undefined);
}

type Settings = {appendonly: string; save: string; appendfsync: string; policy: string};

/** The settings that make acknowledged events volatile, each with the command that fixes it. */
export function durabilityProblems(settings: Settings): DurabilityProblem[] {
	const problems: DurabilityProblem[] = [];
	if (settings.appendonly.toLowerCase() !== 'yes') {
		const save = settings.save.trim();
		problems.push({
			setting: 'appendonly no',
			why: save === ''
				? 'no persistence at all (save ""): a restart of redis-server loses every acknowledged event still in it'
				: `RDB snapshots only (save ${save}): a crash of redis-server loses every event acknowledged since the last snapshot`,
			fix: 'redis-cli CONFIG SET appendonly yes && redis-cli CONFIG REWRITE',
		});
	}

	if (settings.policy.toLowerCase() !== 'noeviction') {
		problems.push({
			setting: `maxmemory-policy ${settings.policy}`,
			why: 'Redis may evict queued events when it runs out of memory',
			fix: 'redis-cli CONFIG SET maxmemory-policy noeviction && redis-cli CONFIG REWRITE',
		});
	}

	return problems;
}

/** One sentence naming each setting, what it risks and the command that fixes it. */
export function durabilityReason(problems: DurabilityProblem[]): string {
	return problems.map(problem => `${problem.setting}: ${problem.why} (fix: ${problem.fix})`).join('; ');
}

async function checkServer(client: RedisClient): Promise<StoreDurability> {
	const names = ['appendonly', 'save', 'appendfsync', 'maxmemory-policy'] as const;
	let values: Array<string | undefined>;
	try {
		values = await Promise.all(names.map(async name => configValue(await client.call('CONFIG', 'GET', name), name)));
	} catch (error) {
		return {state: 'unknown', reason: `CONFIG GET was refused: ${errorMessage(error)}`};
	}

	const [appendonly, save, appendfsync, policy] = values;
	if (appendonly === undefined || save === undefined || policy === undefined) {
		return {state: 'unknown', reason: 'CONFIG GET did not name appendonly, save and maxmemory-policy'};
	}

	const problems = durabilityProblems({appendonly, save, appendfsync: appendfsync ?? '', policy});
	if (problems.length === 0) {
		return {state: 'persistent', detail: `AOF (appendonly yes, appendfsync ${appendfsync ?? 'everysec'}), maxmemory-policy noeviction`};
	}

	return {state: 'volatile', detail: durabilityReason(problems), problems};
}

/**
 * Whether a connection is to a Cluster, asked of the connection itself: this module loads no
 * ioredis (the CLI's wording imports `checkByHand` from it, and every command would load it).
 */
function isCluster(client: RedisClient): client is Cluster {
	return client.isCluster;
}

/**
 * The durability of the Redis behind a connection. In a Cluster every primary holds part of the
 * queue: each is checked, and the worst answer (volatile, then unknown) stands, naming its node.
 */
export async function checkPersistence(client: RedisClient): Promise<StoreDurability> {
	if (!isCluster(client)) {
		return checkServer(client);
	}

	const nodes = client.nodes('master');
	if (nodes.length === 0) {
		return {state: 'unknown', reason: 'the Cluster named no primary'};
	}

	const found = await Promise.all(nodes.map(async node => ({node: `${node.options.host ?? '?'}:${String(node.options.port ?? '?')}`, durability: await checkServer(node)})));
	const worst = found.find(item => item.durability.state === 'volatile') ?? found.find(item => item.durability.state === 'unknown');
	if (worst === undefined) {
		return found[0]?.durability ?? {state: 'unknown'};
	}

	const {durability} = worst;
	return {
		...durability,
		...(durability.detail === undefined ? {} : {detail: `node ${worst.node}: ${durability.detail}`}),
		...(durability.reason === undefined ? {} : {reason: `node ${worst.node}: ${durability.reason}`}),
	};
}
