/**
 * `npm run chaos`: steady signed deliveries to `serve` under faults, then a report of what the
 * platform and the store hold. Kinds:
 * - `sigkill`: serve SIGKILLed at random moments (journal mode: one serve, restarted on its data
 *   directory; Redis mode: replicas, one killed and another started each round): acked, lost,
 *   answered twice, still waiting, orphan logs;
 * - `unreachable`, `500`, `429`, `slow` (16 s), `slow-creates` and `slow-writes` (creates or final
 *   writes carried out at once, answered 16 s late), `forward-down`, `disk-full` (serve's data
 *   directory on a tmpfs filled to its last byte, then freed; skipped with one line without a
 *   mount): one fault for --fault-seconds (faults.ts), in journal and Redis mode (--mode), serve's
 *   deadlines shortened for the run and printed; per kind and mode: acknowledged, chats with no
 *   final message, final messages written twice, events still waiting, message logs left RUNNING
 *   (goal 0/0/0/0), then one table of them all.
 * Not part of `npm test`; bounded by --rounds, --max-minutes and the fault durations.
 *
 *   npm run chaos -- [--kinds sigkill,unreachable,500,429,slow,forward-down,disk-full] [--fault-seconds 60]
 *     [--events-per-kind 40] [--answer-deadline DURATION] [--rounds 50] [--mode journal|redis|both] [--per-round 12] [--max-minutes 15]
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {setTimeout as sleep} from 'node:timers/promises';
import type {PlatformClient} from '../../source/platform/client.js';
import {hasRedisServer, startRedis} from '../support/redis.js';
import {Deliveries, type Planned} from './deliveries.js';
import {mountDiskFault} from './disk-fault.js';
import {faultGoalMet, printFaultReport, printFaultTable, runFaultKind, type FaultReport, type FaultRunSettings} from './fault-run.js';
import {faultKinds, type FaultKind} from './faults.js';
import {Fleet} from './fleet.js';
import {printReport, storedEvents, tally, type ModeReport} from './report.js';
import {assistantMessages, planEvents, startWorld, type World} from './world.js';

/** The flags, declared once: parsing and the usage read them. */
const options = {
	rounds: {type: 'string', default: '50'},
	mode: {type: 'string', default: 'both'},
	'per-round': {type: 'string', default: '12'},
	'max-minutes': {type: 'string', default: '15'},
	seed: {type: 'string'},
	kinds: {type: 'string', default: ['sigkill', ...faultKinds.map(kind => kind.name)].join(',')},
	'fault-seconds': {type: 'string', default: '60'},
	'events-per-kind': {type: 'string', default: '40'},
	'answer-deadline': {type: 'string'},
	help: {type: 'boolean', short: 'h'},
} as const;

/** The usage, from the declaration above: each flag with its default. */
function usage(): string {
	const flags = Object.entries(options).filter(([name]) => name !== 'help').map(([name, spec]) => `  --${name}${'default' in spec ? ` (default ${spec.default})` : ''}`);
	return ['Usage: npm run chaos -- [flags]', 'Steady signed deliveries to serve under faults, then a report of what the platform and the store hold.', ...flags, '  --help, -h'].join('\n');
}

function parseFlags(): ReturnType<typeof parseArgs<{options: typeof options}>>['values'] {
	try {
		return parseArgs({options}).values;
	} catch (error) {
		console.error(`${error instanceof Error ? error.message : String(error)}\n${usage()}`);
		process.exit(1);
	}
}

const values = parseFlags();
if (values.help) {
	console.log(usage());
	process.exit(0);
}

const kinds = new Set(values.kinds.split(',').map(kind => kind.trim()).filter(Boolean));
const unknownKinds = [...kinds].filter(kind => kind !== 'sigkill' && !faultKinds.some(known => known.name === kind));
if (unknownKinds.length > 0) {
	throw new Error(`--kinds: unknown ${unknownKinds.join(', ')} (known: sigkill, ${faultKinds.map(kind => kind.name).join(', ')})`);
}

const faultMs = Number(values['fault-seconds']) * 1000;
const eventsPerKind = Number(values['events-per-kind']);
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);
const deadline = Date.now() + (Number(values['max-minutes']) * 60_000);
let seed = Number(values.seed ?? Date.now() % 100_000);
console.log(`chaos: seed ${seed} (--seed ${seed} repeats the kill times)`);

/** A small seeded generator, so a run's kill times can be repeated. */
function random(): number {
	seed = (seed * 16_807) % 2_147_483_647;
	return (seed - 1) / 2_147_483_646;
}

type Mode = {name: string; store: string[]; replicas: number; drainMs: number};

async function runMode(world: World, mode: Mode): Promise<ModeReport> {
	const startedAt = Date.now();
	const batches = await planEvents(world, rounds, perRound);
	const {platform} = world;
	const env = {PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId, PLATFORM_ENDPOINT_SECRET: platform.endpointSecret};
	const fleet = new Fleet({env, store: mode.store});
	const deliveries = new Deliveries(platform.endpointSecret, () => fleet.target());
	const sent: Planned[] = [];
	world.model.setDelay(40);
	let kills = 0;
	let done = 0;
	try {
		await Promise.all(Array.from({length: mode.replicas}, async () => fleet.start()));
		for (const batch of batches) {
			if (Date.now() > deadline) {
				console.log(`  ${mode.name}: --max-minutes reached after ${done} rounds`);
				break;
			}

			sent.push(...batch);
			const delivering = deliveries.deliver(batch, 8, deadline + 120_000);
			await sleep(20 + (random() * 400));
			const live = fleet.live();
			const victim = live[Math.floor(random() * live.length)];
			if (victim !== undefined) {
				await fleet.kill(victim);
				kills++;
			}

			await fleet.start();
			// The platform also redelivers events whose ack it missed: two acked events of earlier rounds.
			const earlier = sent.filter(event => deliveries.ackedIds.has(event.id));
			await Promise.all([0, 1].map(async () => {
				const again = earlier[Math.floor(random() * earlier.length)];
				return again === undefined ? undefined : deliveries.resend(again, deadline + 120_000);
			}));
			await delivering;
			done++;
			if (done % 10 === 0) {
				console.log(`  ${mode.name}: ${done}/${rounds} rounds, ${kills} kills`);
			}
		}

		// Every acked chosen event ends (answered or failed) on some process before the count.
		const chosen = sent.filter(event => event.kind === 'chosen' && deliveries.ackedIds.has(event.id));
		const drainEnd = Date.now() + mode.drainMs;
		while (Date.now() < drainEnd) {
			const ended = new Set(fleet.lines().filter(line => line.type === 'stage' && (line.stage === 'answered' || line.stage === 'failed')).map(line => String(line.eventId)));
			if (chosen.every(event => ended.has(event.id))) {
				break;
			}

			await sleep(200);
		}
	} finally {
		await fleet.stop();
	}

	const stored = await storedEvents(mode.store, env);
	const duplicates = fleet.lines().filter(line => line.type === 'duplicate').length;
	return tally({mode: mode.name, rounds: done, kills, events: sent, deliveries, platform, stored, duplicates, startedAt});
}

/** The fault kinds asked for, each on a fresh serve in each mode asked for (journal; one replica on a fresh Redis), with the deadlines shortened and printed. */
async function runFaults(world: World): Promise<boolean> {
	const chosen = faultKinds.filter(kind => kinds.has(kind.name));
	if (chosen.length === 0) {
		return true;
	}

	// The answer is retried through the fault and a margin; the apology after that, for 10 minutes.
	const settings = {
		faultMs,
		events: eventsPerKind,
		// Shorter than the fault (--answer-deadline 20s), the apologies are written, retried until they land.
		answerDeadline: values['answer-deadline'] ?? `${Math.round((faultMs / 1000) + 60)}s`,
		finalMessageDeadline: '10m',
		retryBackoffMs: 1000,
		settleMs: faultMs + 180_000,
	};
	const modes: Array<'journal' | 'redis'> = values.mode === 'both' ? ['journal', 'redis'] : [values.mode === 'redis' ? 'redis' : 'journal'];
	if (modes.includes('redis') && !hasRedisServer) {
		console.log('faults in redis mode: skipped, redis-server is not installed');
		modes.splice(modes.indexOf('redis'), 1);
	}

	console.log(`faults: each ${faultMs / 1000} s, ${eventsPerKind} chosen events per kind, modes ${modes.join(', ')}; serve --answer-deadline ${settings.answerDeadline} --final-message-deadline ${settings.finalMessageDeadline} (first retry wait ${settings.retryBackoffMs} ms, doubling)`);
	const client = world.test.client();
	const reports: FaultReport[] = [];
	try {
		for (const kind of chosen) {
			for (const mode of modes) {
				const report = await runFaultKindIn(world, kind, mode, settings, client);
				if (report !== undefined) {
					printFaultReport(report);
					reports.push(report);
				}
			}
		}
	} finally {
		await client.close();
	}

	printFaultTable(reports);
	return reports.every(report => faultGoalMet(report));
}

/** One kind in one mode; undefined (with one printed line) when it cannot run here. */
async function runFaultKindIn(world: World, kind: FaultKind, mode: 'journal' | 'redis', settings: FaultRunSettings, client: PlatformClient): Promise<FaultReport | undefined> {
	const skipped = kind.skip?.() ?? (kind.disk && mode === 'redis' ? 'the disk it fills holds the journal only' : undefined);
	if (skipped !== undefined) {
		console.log(`${kind.name} [${mode}]: skipped, ${skipped}`);
		return undefined;
	}

	const disk = kind.disk ? mountDiskFault() : undefined;
	if (disk !== undefined && 'skipped' in disk) {
		console.log(disk.skipped);
		return undefined;
	}

	// A fresh Redis per kind: no job of an earlier kind is left in its queue.
	const redis = mode === 'redis' ? await startRedis({appendonly: true}) : undefined;
	try {
		const messages = await assistantMessages(world, client, eventsPerKind);
		return await runFaultKind(world, kind, messages, settings, redis === undefined ? {mode: 'journal'} : {mode: 'redis', url: redis.url}, disk);
	} finally {
		await redis?.stop();
		disk?.unmount();
	}
}

const world = await startWorld();
let met = true;
try {
	const modes: Mode[] = [];
	if (kinds.has('sigkill') && (values.mode === 'journal' || values.mode === 'both')) {
		modes.push({name: 'journal', store: ['--data-dir', mkdtempSync(path.join(tmpdir(), 'platform-tui-chaos-'))], replicas: 1, drainMs: 60_000});
	}

	const redis = kinds.has('sigkill') && (values.mode === 'redis' || values.mode === 'both') && hasRedisServer ? await startRedis({appendonly: true}) : undefined;
	if (kinds.has('sigkill') && values.mode !== 'journal' && redis === undefined) {
		console.log('redis mode: skipped, redis-server is not installed');
	}

	if (redis !== undefined) {
		// A killed replica's job is taken over once its lock expires (15 s) at the next stall check.
		modes.push({name: 'redis (3 replicas)', store: ['--redis', redis.url], replicas: 3, drainMs: 120_000});
	}

	try {
		for (const mode of modes) {
			const report = await runMode(world, mode);
			met = printReport(report) && met;
		}
	} finally {
		await redis?.stop();
	}

	met = await runFaults(world) && met;
} finally {
	await world.close();
}

process.exitCode = met ? 0 : 1;
