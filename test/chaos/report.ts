/**
 * The chaos run's figures for one mode, read from what the platform recorded (every PATCH of a
 * message, every message log) and from the store (`events list`), never from serve's own claims.
 */
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {runCli} from '../support/cli.js';
import type {Deliveries, Planned} from './deliveries.js';

export type ModeReport = {
	mode: string;
	rounds: number;
	kills: number;
	events: number;
	acked: number;
	deliveries: number;
	resent: number;
	duplicates: number;
	lost: string[];
	answeredTwice: string[];
	orphanLogs: number;
	apologies: number;
	/** Acknowledged chosen events still waiting in the store at the end. */
	waiting: number;
	minutes: number;
};

/** The ids `events list` finds in the store, with their status. */
export async function storedEvents(store: string[], env: Record<string, string>): Promise<Map<string, string>> {
	const listed = await runCli(['events', 'list', '--json', '--limit', '100000', ...store], {env, timeoutMs: 120_000});
	if (listed.code !== 0) {
		throw new Error(`events list failed: ${listed.stderr.trim()}`);
	}

	const found = new Map<string, string>();
	for (const line of listed.stdout.split('\n')) {
		if (line.startsWith('{')) {
			const event = JSON.parse(line) as {type?: string; id?: string; status?: string};
			// The run ends with the --json envelope's result line, which is no event.
			if (event.type === 'event') {
				found.set(String(event.id), String(event.status));
			}
		}
	}

	return found;
}

export function tally(options: {mode: string; rounds: number; kills: number; events: Planned[]; deliveries: Deliveries; platform: LocalPlatform; stored: Map<string, string>; duplicates: number; startedAt: number}): ModeReport {
	const {events, deliveries, platform, stored} = options;
	const patches = new Map<string, number>();
	for (const request of platform.requests) {
		if (request.method === 'PATCH' && request.path.startsWith('/messages/') && request.status >= 200 && request.status < 300) {
			const id = request.path.slice('/messages/'.length);
			patches.set(id, (patches.get(id) ?? 0) + 1);
		}
	}

	const lost: string[] = [];
	const answeredTwice: string[] = [];
	let orphanLogs = 0;
	let apologies = 0;
	let waiting = 0;
	for (const event of events) {
		if (!deliveries.ackedIds.has(event.id)) {
			continue;
		}

		const status = stored.get(event.id);
		if (event.kind === 'user') {
			if (status === undefined) {
				lost.push(event.id);
			}

			continue;
		}

		const messageId = event.messageId ?? '';
		const writes = patches.get(messageId) ?? 0;
		if (writes === 0 || status === undefined) {
			lost.push(event.id);
		}

		if (writes > 1) {
			answeredTwice.push(event.id);
		}

		if (status === 'failed') {
			apologies++;
		}

		if (status === 'waiting') {
			waiting++;
		}

		orphanLogs += platform.messageLogs(messageId).filter(log => log.status === 'RUNNING').length;
	}

	return {
		mode: options.mode,
		rounds: options.rounds,
		kills: options.kills,
		events: events.length,
		acked: deliveries.ackedIds.size,
		deliveries: deliveries.tally.attempts,
		resent: deliveries.tally.resent,
		duplicates: options.duplicates,
		lost,
		answeredTwice,
		orphanLogs,
		apologies,
		waiting,
		minutes: (Date.now() - options.startedAt) / 60_000,
	};
}

/** Prints the report; true when the goals (nothing lost, nothing answered twice) are met. */
export function printReport(report: ModeReport): boolean {
	const ids = (list: string[]) => (list.length === 0 ? '' : ` (${list.slice(0, 5).join(', ')}${list.length > 5 ? ', …' : ''})`);
	const met = report.lost.length === 0 && report.answeredTwice.length === 0 && report.waiting === 0;
	console.log(`${report.mode}: ${report.rounds} rounds, ${report.kills} SIGKILLs in ${report.minutes.toFixed(1)} min`);
	console.log(`  events ${report.events}, acked ${report.acked}, delivery attempts ${report.deliveries}, acked events sent again ${report.resent}, redeliveries deduplicated ${report.duplicates}`);
	console.log(`  lost ${report.lost.length}${ids(report.lost)} (goal 0: ${report.lost.length === 0 ? 'MET' : 'NOT MET'})`);
	console.log(`  answered twice ${report.answeredTwice.length}${ids(report.answeredTwice)} (goal 0: ${report.answeredTwice.length === 0 ? 'MET' : 'NOT MET'})`);
	console.log(`  still waiting ${report.waiting} (goal 0: ${report.waiting === 0 ? 'MET' : 'NOT MET'})`);
	console.log(`  orphan logs (left RUNNING) ${report.orphanLogs}: ${(report.orphanLogs / Math.max(report.kills, 1)).toFixed(2)} per kill; answered with the apology ${report.apologies}`);
	return met;
}
