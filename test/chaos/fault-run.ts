/**
 * One fault kind of the chaos run: a fresh `serve` (journal, or one replica on a fresh Redis) with shortened deadlines, chosen-module
 * events delivered steadily from shortly before the fault through its end, the fault cleared, then
 * the count once every acknowledged event has its final message (or the wait is over): what the
 * platform (or the forward handler) recorded, never serve's own claims — the writes of each
 * message and the message logs left RUNNING among them.
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {buildTestEvent} from '../../source/receiver/intake/test-event.js';
import {Deliveries, type Planned} from './deliveries.js';
import type {DiskFault} from './disk-fault.js';
import {ForwardHandler, PlatformProxy, type FaultContext, type FaultKind} from './faults.js';
import {Fleet} from './fleet.js';
import {storedEvents} from './report.js';
import type {World} from './world.js';

export type FaultRunSettings = {
	faultMs: number;
	/** Events delivered per kind. */
	events: number;
	/** serve's --answer-deadline and --final-message-deadline for the run, and its first retry wait. */
	answerDeadline: string;
	finalMessageDeadline: string;
	retryBackoffMs: number;
	/** Longest wait for the final messages after the fault cleared, ms. */
	settleMs: number;
};

/** Where serve keeps its events for a kind: the journal in a fresh directory, or a fresh Redis. */
export type FaultStore = {mode: 'journal'} | {mode: 'redis'; url: string};

export type FaultReport = {
	kind: string;
	mode: FaultStore['mode'];
	description: string;
	acknowledged: number;
	/** Delivery attempts serve did not acknowledge (a 503 while it could not store, a refused connection). */
	unacknowledged: number;
	/** Acknowledged events whose chat got no final message (or that the handler never got). */
	noFinal: string[];
	/** Final messages written (or forwards answered 2xx) more than once. */
	twice: string[];
	/** Events still waiting in the store at the end. */
	waiting: number;
	answers: number;
	apologies: number;
	/** Message logs still RUNNING on the acknowledged events' messages at the end, from the platform. */
	runningLogs: number;
	/** Acknowledged events that waited at least once (a durable retry), from serve's log. */
	waited: number;
	/** From the fault's end until the last final message, s. */
	recoverySeconds: number;
	minutes: number;
};

function planned(world: World, messages: Array<{chatId: string; messageId: string}>): Planned[] {
	const {platform} = world;
	return messages.map(({chatId, messageId}) => {
		const body = buildTestEvent('external-module-chosen', {chatId, assistantMessageId: messageId, text: 'What does the keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
		return {id: body.id, kind: 'chosen', body, messageId};
	});
}

/** Successful writes of each message (PATCH /messages/{id} answered 2xx), from the platform's request log. */
function finalWrites(world: World): Map<string, number> {
	const writes = new Map<string, number>();
	for (const request of world.platform.requests) {
		if (request.method === 'PATCH' && request.path.startsWith('/messages/') && request.status >= 200 && request.status < 300) {
			const id = request.path.slice('/messages/'.length);
			writes.set(id, (writes.get(id) ?? 0) + 1);
		}
	}

	return writes;
}

/** Runs one kind; `disk` is the mounted disk of a kind that asks for one (serve's data directory is on it). */
export async function runFaultKind(world: World, kind: FaultKind, messages: Array<{chatId: string; messageId: string}>, settings: FaultRunSettings, store: FaultStore, disk?: DiskFault): Promise<FaultReport> {
	const startedAt = Date.now();
	const proxy = new PlatformProxy(new URL(world.platform.baseUrl));
	const handler = new ForwardHandler();
	await proxy.open();
	await handler.open();
	const context: FaultContext = {platform: world.platform, proxy, handler, ...(disk === undefined ? {} : {disk})};
	const {platform} = world;
	const env = {PLATFORM_BASE_URL: proxy.url, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId, PLATFORM_ENDPOINT_SECRET: platform.endpointSecret};
	const dataDir = disk?.directory ?? mkdtempSync(path.join(tmpdir(), 'platform-tui-chaos-fault-'));
	const args = ['--answer-deadline', settings.answerDeadline, '--final-message-deadline', settings.finalMessageDeadline, '--retry-backoff', String(settings.retryBackoffMs), ...(kind.forward ? ['--forward-to', handler.url] : [])];
	const storeArgs = store.mode === 'redis' ? ['--redis', store.url] : ['--data-dir', dataDir];
	const fleet = new Fleet({env, store: storeArgs, args});
	const deliveries = new Deliveries(platform.endpointSecret, () => fleet.target());
	const events = planned(world, messages);
	const isFinal = (event: Planned): boolean => (kind.forward ? (handler.answered.get(event.id) ?? 0) > 0 : (finalWrites(world).get(event.messageId ?? '') ?? 0) > 0);
	let faultEnd = Date.now();
	try {
		await fleet.start();
		// A quarter of the events before the fault, the rest while it lasts.
		const leadMs = Math.round(settings.faultMs / 3);
		const intervalMs = (leadMs + settings.faultMs) / events.length;
		const deadline = Date.now() + leadMs + settings.faultMs + settings.settleMs;
		const sending: Array<Promise<void>> = [];
		const fault = (async () => {
			await sleep(leadMs);
			await kind.start(context);
			await sleep(settings.faultMs);
			await kind.stop(context);
			faultEnd = Date.now();
		})();
		for (const event of events) {
			sending.push(deliveries.deliver([event], 1, deadline));
			await sleep(intervalMs);
		}

		await fault;
		await Promise.all(sending);
		const acked = events.filter(event => deliveries.ackedIds.has(event.id));
		while (Date.now() < faultEnd + settings.settleMs && !acked.every(event => isFinal(event))) {
			await sleep(250);
		}

		// A moment more, so a second write that would follow the first is seen.
		await sleep(2000);
	} finally {
		await fleet.stop();
		await handler.close();
		await proxy.close();
	}

	const stored = await storedEvents(storeArgs, env);
	const waitedIds = new Set(fleet.lines().filter(line => line.type === 'stage' && line.stage === 'waiting').map(line => String(line.eventId)));
	const writes = finalWrites(world);
	const acked = events.filter(event => deliveries.ackedIds.has(event.id));
	const count = (event: Planned) => (kind.forward ? handler.answered.get(event.id) ?? 0 : writes.get(event.messageId ?? '') ?? 0);
	const lastFinal = Math.max(faultEnd, ...platform.requests.filter(request => request.method === 'PATCH' && request.path.startsWith('/messages/') && request.status === 200).map(request => Date.parse(request.at)));
	return {
		kind: kind.name,
		mode: store.mode,
		description: kind.description,
		runningLogs: kind.forward ? 0 : acked.reduce((sum, event) => sum + platform.messageLogs(event.messageId ?? '').filter(log => log.status === 'RUNNING').length, 0),
		acknowledged: acked.length,
		unacknowledged: deliveries.tally.failedStatus + deliveries.tally.refused,
		noFinal: acked.filter(event => count(event) === 0).map(event => event.id),
		twice: acked.filter(event => count(event) > 1).map(event => event.id),
		waiting: acked.filter(event => stored.get(event.id) === 'waiting').length,
		answers: kind.forward ? acked.filter(event => count(event) > 0).length : acked.filter(event => platform.message(event.messageId ?? '')?.text !== apologyText && count(event) > 0).length,
		waited: acked.filter(event => waitedIds.has(event.id)).length,
		apologies: kind.forward ? 0 : acked.filter(event => platform.message(event.messageId ?? '')?.text === apologyText).length,
		recoverySeconds: kind.forward ? 0 : Math.max(0, (lastFinal - faultEnd) / 1000),
		minutes: (Date.now() - startedAt) / 60_000,
	};
}

/** Whether a kind met its goal: every acknowledged event has one final message, none is still waiting and no log is left RUNNING. */
export function faultGoalMet(report: FaultReport): boolean {
	return report.noFinal.length === 0 && report.twice.length === 0 && report.waiting === 0 && report.runningLogs === 0;
}

/** Prints one kind's figures; true when the goal (0 / 0 / 0 / 0 once the fault cleared) is met. */
export function printFaultReport(report: FaultReport): boolean {
	const ids = (list: string[]) => (list.length === 0 ? '' : ` (${list.slice(0, 3).join(', ')}${list.length > 3 ? ', …' : ''})`);
	const met = faultGoalMet(report);
	const finals = report.kind === 'forward-down' ? `forwarded ${report.answers}` : `answers ${report.answers}, apologies ${report.apologies}, last final message ${report.recoverySeconds.toFixed(1)} s after the fault cleared`;
	console.log(`${report.kind} [${report.mode}] (${report.description}) in ${report.minutes.toFixed(1)} min: acknowledged ${report.acknowledged} (deliveries not acknowledged ${report.unacknowledged}), waited (durable retry) ${report.waited}; ${finals}`);
	console.log(`  no final message ${report.noFinal.length}${ids(report.noFinal)}, written twice ${report.twice.length}${ids(report.twice)}, still waiting ${report.waiting}, logs left RUNNING ${report.runningLogs} (goal 0/0/0/0: ${met ? 'MET' : 'NOT MET'})`);
	return met;
}

/** The table of every kind run (Markdown): what the platform holds per kind and mode. */
export function printFaultTable(reports: readonly FaultReport[]): void {
	console.log('');
	console.log('| kind | mode | acked | answered | apologies | no final message | written twice | logs left RUNNING | goal |');
	console.log('|---|---|---|---|---|---|---|---|---|');
	for (const report of reports) {
		console.log(`| ${report.kind} | ${report.mode} | ${report.acknowledged} | ${report.answers} | ${report.apologies} | ${report.noFinal.length} | ${report.twice.length} | ${report.runningLogs} | ${faultGoalMet(report) ? 'met' : 'NOT MET'} |`);
	}
}
