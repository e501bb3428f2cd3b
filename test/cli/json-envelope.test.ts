/**
 * The one --json envelope (source/cli/json.ts, docs/json.md), table-driven: every command and
 * subcommand runs with --json against a local platform and a journal holding a real event; every
 * line it prints must be an object with a `type`, and the last line exactly one `result` or
 * `error` carrying the ids the run touched. docs/json.md has a section per command naming every
 * line type the command printed here.
 */
import {appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {errorLine, finalLine, jsonLine, resultLine} from '../../source/cli/json.js';
import {jsonRecords, printsType, type JsonRecordType} from '../../source/cli/json-records.js';
import {registry} from '../../source/commands/registry.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runCliInProcess} from '../support/run-cli.js';
import {waitFor} from '../support/wait.js';

let platform: LocalPlatform;
let env: Record<string, string | undefined>;
let eventId = '';
let chatId: string;
const root = mkdtempSync(path.join(tmpdir(), 'platform-tui-json-'));
const folder = path.join(root, 'docs');
const dataDir = path.join(root, 'data');
const typesByCommand = new Map<string, Set<string>>();

beforeAll(async () => {
	platform = (await startPlatform()).platform;
	env = platformEnv(platform, {PLATFORM_TUI_DATA_DIR: dataDir});
	const {mkdirSync} = await import('node:fs');
	mkdirSync(folder, {recursive: true});
	writeFileSync(path.join(folder, 'warranty.md'), 'The warranty lasts two years.\n');
	// A chosen-module event for a real assistant message, journaled as serve would.
	const user = clientFor(platform);
	const chat = await user.createChat({title: 'Envelope', assistantId: platform.assistantId});
	chatId = chat.id;
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId, text: 'How long is the warranty?'});
	const messageId = (await user.getChatMessages(chatId)).messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
	await waitFor(() => Boolean(platform.message(messageId)?.stoppedStreamingAt));
	const event = buildTestEvent('external-module-chosen', {chatId, assistantMessageId: messageId, text: 'How long is the warranty?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
	eventId = event.id;
	const journal = await openJournal({directory: dataDir});
	try {
		await journal.accept({id: event.id, event: event.event, receivedAt: new Date().toISOString(), body: signDelivery(event, 'whsec_test').body, headers: {}, chatId, status: 'received'});
	} finally {
		await journal.close();
	}
});

afterAll(async () => {
	await platform.close();
	rmSync(root, {recursive: true, force: true});
});

type Row = {argv: () => string[]; ends: 'result' | 'error'; stdin?: string; aborted?: boolean; ids?: () => {chatIds?: string[]; eventIds?: string[]}; help?: string};

/** One row per command (and a second where a command has two shapes); `ends` is what the run ends with. */
const rows: Row[] = [
	{argv: () => ['version'], ends: 'result'},
	{argv: () => ['config', 'path'], ends: 'result'},
	{argv: () => ['config', 'list'], ends: 'result'},
	{argv: () => ['config', 'get', 'baseUrl'], ends: 'result'},
	{argv: () => ['config', 'set', 'model', 'AZURE_GPT_4o_2024_1120'], ends: 'result'},
	{argv: () => ['config', 'get', 'noSuchSetting'], ends: 'error'},
	{argv: () => ['upload', folder, 'How long is the warranty?', '--poll-interval', '0.02'], ends: 'result'},
	{argv: () => ['upload', folder, 'q', '--dry-run'], ends: 'result'},
	{argv: () => ['upload', folder, 'q', '--exclude', '['], ends: 'error'},
	{argv: () => ['upload', folder, 'q', '--chat', chatId, '--delete', '--max-delete', '5', '--dry-run'], ends: 'result'},
	{argv: () => ['upload', folder, 'q', '--delete'], ends: 'error'},
	{argv: () => ['chat', chatId, 'And after two years?', '--poll-interval', '0.02'], ends: 'result', ids: () => ({chatIds: [chatId]})},
	{argv: () => ['check', folder, '--chat', chatId], ends: 'result', ids: () => ({chatIds: [chatId]})},
	{argv: () => ['check', folder], ends: 'error'},
	{argv: () => ['chats'], ends: 'result'},
	{argv: () => ['events', 'list'], ends: 'result', ids: () => ({eventIds: [eventId]})},
	{argv: () => ['events', 'show', eventId], ends: 'result', ids: () => ({eventIds: [eventId]})},
	{argv: () => ['events', 'export', eventId, '--output', path.join(root, 'fixture.json')], ends: 'result', ids: () => ({eventIds: [eventId]})},
	{argv: () => ['events', 'export', eventId], ends: 'error'},
	{argv: () => ['events', 'replay', eventId], ends: 'result', ids: () => ({eventIds: [eventId]})},
	{argv: () => ['events', 'replay', '--status', 'answered', '--dry-run'], ends: 'result'},
	{argv: () => ['events', 'replay', eventId.slice(0, 12), '--set', 'payload.userMessage.text="Edited"'], ends: 'result'},
	{argv: () => ['events', 'replay', eventId, '--edit'], ends: 'error'},
	{argv: () => ['events', 'inspect'], ends: 'error'},
	{argv: () => ['events', 'list', '--type', 'foo'], ends: 'error'},
	{argv: () => ['events', 'recover', '--data-dir', path.join(root, 'no-journal')], ends: 'error'},
	{argv: () => ['trigger', 'user-message', '--url', 'http://127.0.0.1:9/webhook', '--secret-file', '-'], stdin: 'whsec_test\n', ends: 'error'},
	{argv: () => ['keys', 'show'], ends: 'result'},
	{argv: () => ['keys', 'set'], stdin: 'sk_envelope_test_key_0001\n', ends: 'result'},
	{argv: () => ['keys', 'rotate', '--if-older-than', '30d'], ends: 'result'},
	{argv: () => ['init'], ends: 'error'},
	{argv: () => ['completion', 'bash'], ends: 'result'},
	{argv: () => ['completion', '--event-ids', '--', 'events', 'show'], ends: 'result', ids: () => ({eventIds: [eventId]})},
	{argv: () => ['completion', '--chat-ids'], ends: 'result'},
	{argv: () => ['serve', '--port', '0', '--data-dir', path.join(root, 'serve-data')], aborted: true, ends: 'result'},
	{argv: () => ['serve', '--port', '0', '--data-dir', path.join(root, 'serve-data'), '--answer-deadline', '1m', '--final-message-deadline', '1h'], aborted: true, ends: 'result'},
	{argv: () => ['serve', '--answer-deadline', '2h', '--final-message-deadline', '1h'], ends: 'error'},
	{argv: () => ['listen', '--data-dir', path.join(root, 'listen-data')], aborted: true, ends: 'result'},
	{argv: () => ['listen', '--redis', 'redis://127.0.0.1:6379'], ends: 'error'},
	{argv: () => ['local', '--port', '0'], aborted: true, ends: 'result'},
	{argv: () => ['no-such-command'], ends: 'error'},
	// Help asked for with --json, and a bare group, are a `help` line and the `result`.
	{argv: () => ['--help'], ends: 'result', help: 'help'},
	{argv: () => ['keys'], ends: 'result', help: 'keys'},
	{argv: () => ['events'], ends: 'result', help: 'events'},
	{argv: () => ['trigger', '--help'], ends: 'result', help: 'trigger'},
	{argv: () => ['help', 'keys', 'rotate'], ends: 'result', help: 'keys rotate'},
];

describe('--json: one envelope for every command', () => {
	it.each(rows.map(row => [row.argv().join(' '), row] as const))('%s', async (_name, row) => {
		const controller = new AbortController();
		if (row.aborted) {
			controller.abort('SIGINT');
		}

		const argv = row.argv();
		const result = await runCliInProcess(['--json', ...argv], {env, ...(row.stdin === undefined ? {} : {stdin: row.stdin}), signal: controller.signal});
		const lines = result.stdout.split('\n').filter(line => line !== '');
		expect(lines.length, result.stderr).toBeGreaterThan(0);
		const parsed = lines.map(line => jsonLine.parse(JSON.parse(line)));
		const last = finalLine.parse(parsed.at(-1));
		expect(last.type, `${result.stdout}\n${result.stderr}`).toBe(row.ends);
		expect(parsed.slice(0, -1).filter(line => line.type === 'result' || line.type === 'error')).toEqual([]);
		if (last.type === 'error') {
			expect(errorLine.parse(last).message).not.toBe('');
			expect(result.code).not.toBe(0);
		}

		if (row.help !== undefined) {
			expect(parsed.map(line => line.type)).toEqual(['help', 'result']);
			expect(parsed[0]).toMatchObject({command: row.help, text: expect.stringContaining('USAGE') as string});
			return;
		}

		const expectedIds = row.ids?.() ?? {};
		for (const [key, ids] of Object.entries(expectedIds)) {
			expect((last as Record<string, unknown>)[key], key).toEqual(expect.arrayContaining(ids));
		}

		const entry = registry.find(candidate => argv.slice(0, candidate.words.length).join(' ') === candidate.words.join(' '));
		// Every line is of a declared record type, printed by this command, and matches its schema (json-records.ts).
		for (const line of parsed) {
			expect(Object.keys(jsonRecords), `line type "${line.type}" is not declared in source/cli/json-records.ts`).toContain(line.type);
			const type = line.type as JsonRecordType;
			expect(jsonRecords[type].schema.safeParse(line).error?.issues, JSON.stringify(line)).toBeUndefined();
			if (entry) {
				expect(printsType(entry.words.join(' '), type), `json-records.ts does not list "${entry.words.join(' ')}" among the commands printing "${type}"`).toBe(true);
			}
		}

		if (entry) {
			const name = entry.words.join(' ');
			const types = typesByCommand.get(name) ?? new Set<string>();
			for (const line of parsed) {
				types.add(line.type);
			}

			if (process.env.JSON_SAMPLES) {
				appendFileSync(process.env.JSON_SAMPLES, `${JSON.stringify({command: name, argv, lines: parsed})}\n`);
			}

			typesByCommand.set(name, types);
		}
	});

	it('upload\'s result names the chat and contents it made, and its reply', async () => {
		const result = await runCliInProcess(['upload', folder, 'How long is the warranty?', '--poll-interval', '0.02', '--json'], {env});
		const lines = result.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; chatId?: string; contentIds?: string[]});
		const reply = lines.find(line => line.type === 'reply');
		const last = resultLine.parse(lines.at(-1));
		expect(last.chatIds).toEqual([reply?.chatId]);
		expect(last.contentIds).toEqual(reply?.contentIds);
		expect(last.contentIds).toHaveLength(1);
	});

	it('docs/json.md has a section per command naming every line type it printed', () => {
		const docs = readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'json.md'), 'utf8');
		const sections = new Map(docs.split(/^## /m).slice(1).map(section => [section.split('\n')[0]?.trim() ?? '', section]));
		for (const entry of registry) {
			const name = entry.words.join(' ');
			const section = sections.get(`platform-tui ${name}`);
			expect(section, `docs/json.md has no section "## platform-tui ${name}"`).toBeDefined();
			// `result` and `error` are documented once, at the top.
			for (const type of [...typesByCommand.get(name) ?? []].filter(type => type !== 'result' && type !== 'error')) {
				expect(section, `docs/json.md, platform-tui ${name}: line type "${type}" is not documented`).toContain(`"type":"${type}"`);
			}
		}
	});
});
