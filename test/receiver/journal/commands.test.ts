import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import exportCommand from '../../../source/commands/events/export.js';
import listCommand from '../../../source/commands/events/list.js';
import replayCommand from '../../../source/commands/events/replay.js';
import showCommand from '../../../source/commands/events/show.js';
import {journalMessages} from '../../../source/cli/messages/journal.js';
import {UsageError} from '../../../source/cli/validators.js';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import type {EventBackend} from '../../../source/receiver/store/backend.js';
import {JournalError, openJournal} from '../../../source/receiver/journal/index.js';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {runCliInProcess} from '../../support/run-cli.js';
import {runCommand} from '../../support/run-command.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, startHolder, tempDataDir, type Holder} from './helpers.js';

const signature = 'feedfacecafebeef0123456789abcdef';

let directory: string;
let platform: LocalPlatform;
let user: PlatformClient;
const holders: Holder[] = [];

async function withJournal<T>(work: (journal: EventBackend) => Promise<T>): Promise<T> {
	const journal = await openJournal({directory, mode: 'replay'});
	try {
		return await work(journal);
	} finally {
		await journal.close();
	}
}

/** A real assistant message of the local platform (answered by its built-in assistant first) and a chosen event for it. */
async function chosenForRealMessage(): Promise<{id: string; messageId: string; chatId: string}> {
	const chat = await user.createChat({title: 'Replay', assistantId: platform.assistantId});
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'What does the lighthouse keeper write?'});
	const history = await user.getChatMessages(chat.id);
	const messageId = history.messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
	await waitFor(() => Boolean(platform.message(messageId)?.stoppedStreamingAt));
	const event = buildTestEvent('external-module-chosen', {chatId: chat.id, assistantMessageId: messageId, text: 'What does the lighthouse keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
	const delivery = signDelivery(event, 'whsec_test');
	await withJournal(async journal => {
		await journal.accept({id: event.id, event: event.event, receivedAt: new Date().toISOString(), body: delivery.body, headers: {'x-platform-signature': signature}, chatId: chat.id, status: 'received'});
		// A first attempt that failed (the platform was down, say).
		await journal.replay(event.id, async job => {
			await job.recordStep({name: 'failing', at: new Date().toISOString(), error: 'the platform answered 503'});
			return {status: 'failed', error: 'the platform answered 503'};
		});
	});
	return {id: event.id, messageId, chatId: chat.id};
}

beforeAll(async () => {
	directory = tempDataDir();
	platform = (await startPlatform()).platform;
	user = clientFor(platform);
	const journal = await openJournal({directory});
	const now = Date.now();
	await journal.accept(newEvent({id: 'evt_aaaa0000000000000000000001', receivedAt: new Date(now - 2 * 3_600_000).toISOString(), headers: {'x-platform-signature': signature, 'x-platform-id': 'evt_aaaa0000000000000000000001'}}));
	await journal.accept(newEvent({id: 'evt_bbbb0000000000000000000002', event: 'platform.chat.user-message.created', status: 'ignored', chatId: 'chat_2', receivedAt: new Date(now - 60_000).toISOString()}));
	await journal.close();
});

afterEach(async () => {
	await Promise.all(holders.splice(0).map(async holder => holder.kill()));
});

afterAll(async () => {
	await user.close();
	await platform.close();
});

const platformEnv = () => ({PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId});

describe('events list', () => {
	it('prints a table newest first with a footer naming the count and disk use', async () => {
		const result = await runCommand(listCommand, {flags: {dataDir: directory}});
		expect(result.code).toBe(0);
		// Piped: tab-separated rows, no heading, nothing cut; the footer goes to stderr.
		const lines = result.stdout.trim().split('\n');
		expect(lines).toHaveLength(2);
		expect(lines[0]?.split('\t')).toEqual([expect.any(String), 'evt_bbbb0000000000000000000002', 'user-message.created', 'ignored', 'chat_2', '-']);
		expect(lines[1]?.split('\t')[1]).toBe('evt_aaaa0000000000000000000001');
		expect(result.stderr.trim()).toMatch(new RegExp(`^2 events shown of 2 in the journal in ${directory} \\(\\d[\\d.]* (B|KiB|MiB) on disk\\)\\.$`));
	});

	it('filters by status, type, since and limit; --json prints one object per line', async () => {
		const json = async (flags: Record<string, unknown>) => {
			const result = await runCommand(listCommand, {flags: {dataDir: directory, json: true, ...flags}});
			expect(result.code).toBe(0);
			return result.stdout.trim().split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Record<string, unknown>);
		};

		const ignored = await json({status: 'ignored'});
		expect(ignored).toHaveLength(1);
		expect(ignored[0]).toMatchObject({id: 'evt_bbbb0000000000000000000002', event: 'platform.chat.user-message.created', status: 'ignored'});
		expect(typeof ignored[0]?.receivedAt).toBe('string');
		expect((await json({type: 'external-module.chosen'})).map(line => line.id)).toContain('evt_aaaa0000000000000000000001');
		expect((await json({since: '1h'})).map(line => line.id)).not.toContain('evt_aaaa0000000000000000000001');
		expect(await json({limit: '1'})).toHaveLength(1);
	});

	it('refuses a bad filter with the one-style sentence', async () => {
		const result = await runCommand(listCommand, {flags: {dataDir: directory, status: 'done'}});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(UsageError);
		expect(result.stderr).toContain('--status must be one of received, processing, waiting, answered, failed, logged, ignored, e.g. --status received; got "done".');
	});

	it('a data directory without a journal is refused (a mistyped --data-dir), not listed as empty', async () => {
		const typo = tempDataDir();
		const result = await runCommand(listCommand, {flags: {dataDir: typo}});
		expect(result.code).toBe(1);
		expect(result.stdout).toBe('');
		expect(result.stderr).toContain(`There is no event journal in ${typo}: serve has not stored any event there.`);
		const json = await runCliInProcess(['events', 'list', '--data-dir', typo, '--json']);
		expect(json.code).toBe(1);
		expect(JSON.parse(json.stdout.trim())).toMatchObject({type: 'error', code: 'journal-missing'});
	});
});

describe('events show', () => {
	it('shows the headers with the signature masked, the body pretty-printed and the steps', async () => {
		const result = await runCommand(showCommand, {argv: ['evt_aaaa0000000000000000000001'], flags: {dataDir: directory}});
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('x-platform-signature  …cdef');
		expect(result.stdout).not.toContain(signature);
		expect(result.stdout).toContain('  {\n    "id": "evt_aaaa0000000000000000000001",');
		expect(result.stdout).toContain('Steps     none recorded');
		const json = await runCommand(showCommand, {argv: ['evt_aaaa0000000000000000000001'], flags: {dataDir: directory, json: true}});
		expect(JSON.parse(json.stdout)).toMatchObject({id: 'evt_aaaa0000000000000000000001', headers: {'x-platform-signature': '…cdef'}});
		expect(json.stdout).not.toContain(signature);
	});

	it('refuses an unknown id with the close ids', async () => {
		const result = await runCommand(showCommand, {argv: ['evt_aaaa0000000000000000000009'], flags: {dataDir: directory}});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(JournalError);
		expect(result.error).toMatchObject({code: 'journal-event-unknown', data: {id: 'evt_aaaa0000000000000000000009', near: ['evt_aaaa0000000000000000000001', 'evt_bbbb0000000000000000000002'], directory}});
		const wording = journalMessages['journal-event-unknown']?.((result.error as JournalError).data);
		expect(wording).toEqual({message: `No event evt_aaaa0000000000000000000009 in the journal in ${directory}.`, next: 'Did you mean evt_aaaa0000000000000000000001, evt_bbbb0000000000000000000002?'});
	});
});

describe('events replay', () => {
	it('processes a failed event again against the platform: new logs, the answer written', async () => {
		const target = await chosenForRealMessage();
		const logsBefore = platform.messageLogs(target.messageId).length;
		const completionsBefore = platform.completions.length;
		const result = await runCommand(replayCommand, {argv: [target.id], flags: {dataDir: directory}, env: platformEnv()});
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(new RegExp(`^Replayed ${target.id}: answered in \\d+ ms; the answer is written in chat ${target.chatId}\\.\\n$`));
		const logs = platform.messageLogs(target.messageId).slice(logsBefore);
		expect(logs.map(log => log.status)).toEqual(['COMPLETED', 'COMPLETED']);
		expect(platform.completions.length).toBe(completionsBefore + 1);
		expect(platform.message(target.messageId)?.stoppedStreamingAt).toEqual(expect.any(String));
		const shown = await runCommand(showCommand, {argv: [target.id], flags: {dataDir: directory, json: true}});
		const stored = JSON.parse(shown.stdout) as {status: string; attempts: number; steps: Array<{name: string}>};
		expect(stored).toMatchObject({status: 'answered', attempts: 2});
		expect(stored.steps.map(step => step.name)).toContain('message-written');
		expect(stored.steps.map(step => step.name)).not.toContain('failing');
	});

	it('refuses while another process holds the event, naming it', async () => {
		const target = await chosenForRealMessage();
		const holder = await startHolder(directory, 'replay', target.id);
		holders.push(holder);
		const result = await runCommand(replayCommand, {argv: [target.id], flags: {dataDir: directory}, env: platformEnv()});
		expect(result.code).toBe(1);
		expect(result.error).toMatchObject({code: 'journal-event-busy', data: {id: target.id, holder: `pid ${holder.pid}`}});
		expect(journalMessages['journal-event-busy']?.((result.error as JournalError).data).message).toBe(`Event ${target.id} is being processed by another process (pid ${holder.pid}), so it was not replayed.`);
	});

	it('refuses an unknown id with the close ones, and an event that is not a chosen one', async () => {
		const unknown = await runCommand(replayCommand, {argv: ['evt_bbbb0000000000000000000003'], flags: {dataDir: directory}, env: platformEnv()});
		expect(unknown.error).toMatchObject({code: 'journal-event-unknown', data: {near: ['evt_bbbb0000000000000000000002', 'evt_aaaa0000000000000000000001']}});
		const message = await runCommand(replayCommand, {argv: ['evt_bbbb0000000000000000000002'], flags: {dataDir: directory}, env: platformEnv()});
		expect(message.error).toMatchObject({code: 'journal-event-not-replayable', data: {event: 'platform.chat.user-message.created'}});
	});
});

describe('ids given by their start', () => {
	it('show, export and replay accept a unique start of an id', async () => {
		const shown = await runCommand(showCommand, {argv: ['evt_bbbb'], flags: {dataDir: directory, json: true}});
		expect(shown.code).toBe(0);
		expect(JSON.parse(shown.stdout)).toMatchObject({id: 'evt_bbbb0000000000000000000002'});
		const exported = await runCommand(exportCommand, {argv: ['evt_aaaa00'], flags: {dataDir: directory}});
		expect(exported.code).toBe(0);
		expect(JSON.parse(exported.stdout)).toMatchObject({id: 'evt_aaaa0000000000000000000001'});
		const replayed = await runCommand(replayCommand, {argv: ['evt_bbbb'], flags: {dataDir: directory}, env: platformEnv()});
		expect(replayed.error).toMatchObject({code: 'journal-event-not-replayable', data: {id: 'evt_bbbb0000000000000000000002'}});
	});

	it('an ambiguous start lists the events it names and fails', async () => {
		const result = await runCommand(showCommand, {argv: ['evt_'], flags: {dataDir: directory}});
		expect(result.code).toBe(1);
		expect(result.error).toMatchObject({code: 'journal-event-ambiguous', data: {prefix: 'evt_', more: false}});
		const candidates = (result.error as JournalError<'journal-event-ambiguous'>).data.candidates;
		expect(candidates).toEqual(expect.arrayContaining(['evt_aaaa0000000000000000000001', 'evt_bbbb0000000000000000000002']));
		expect(result.stderr).toContain('evt_ is the start of more than one event');
		expect(result.stderr).toContain('evt_aaaa0000000000000000000001');
	});

	it('an unknown start suggests the ids it is close to', async () => {
		const result = await runCommand(showCommand, {argv: ['evt_aaab00'], flags: {dataDir: directory}});
		expect(result.code).toBe(1);
		expect(result.error).toMatchObject({code: 'journal-event-unknown', data: {id: 'evt_aaab00'}});
		expect((result.error as JournalError<'journal-event-unknown'>).data.near[0]).toBe('evt_aaaa0000000000000000000001');
	});

	it('an event accepted but not yet indexed is found by its start too', async () => {
		const journal = await openJournal({directory: tempDataDir(), indexFlushMs: 3_600_000});
		try {
			await journal.accept(newEvent({id: 'evt_fresh000000000000000000001'}));
			expect(await journal.withPrefix?.('evt_fresh', 5)).toEqual(['evt_fresh000000000000000000001']);
			expect(await journal.withPrefix?.('evt_other', 5)).toEqual([]);
		} finally {
			await journal.close();
		}
	});
});
