/**
 * `events replay <id> --set` and `--edit`: the edited copy is a new event (new id, editedFrom the
 * original) stored in the journal and processed against the local platform; the original stays.
 */
import {chmodSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import replayCommand from '../../../source/commands/events/replay.js';
import showCommand from '../../../source/commands/events/show.js';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {runCommand} from '../../support/run-command.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from './helpers.js';

let directory: string;
let platform: LocalPlatform;
let user: PlatformClient;
let original: {id: string; chatId: string};

const platformEnv = () => ({PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId});

beforeAll(async () => {
	directory = tempDataDir();
	platform = (await startPlatform()).platform;
	user = clientFor(platform);
	const chat = await user.createChat({title: 'Edit', assistantId: platform.assistantId});
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'What does the keeper write?'});
	const history = await user.getChatMessages(chat.id);
	const messageId = history.messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
	await waitFor(() => Boolean(platform.message(messageId)?.stoppedStreamingAt));
	const event = buildTestEvent('external-module-chosen', {chatId: chat.id, assistantMessageId: messageId, text: 'What does the keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
	const journal = await openJournal({directory});
	await journal.accept({id: event.id, event: event.event, receivedAt: new Date().toISOString(), body: signDelivery(event, 'whsec_test').body, headers: {'x-platform-signature': 'feedfacecafebeef'}, chatId: chat.id, status: 'logged'});
	await journal.close();
	original = {id: event.id, chatId: chat.id};
});

afterAll(async () => {
	await user.close();
	await platform.close();
});

async function show(id: string): Promise<Record<string, unknown> & {body: {id: string; payload: {userMessage: {text: string}}}; headers: Record<string, string>}> {
	const shown = await runCommand(showCommand, {argv: [id], flags: {dataDir: directory, json: true}});
	expect(shown.code).toBe(0);
	return JSON.parse(shown.stdout) as Awaited<ReturnType<typeof show>>;
}

describe('events replay --set', () => {
	it('stores the changed copy as a new event naming the original, and processes it', async () => {
		const result = await runCommand(replayCommand, {argv: [original.id.slice(0, 12)], flags: {dataDir: directory, set: ['payload.userMessage.text="What does it cost?"'], json: true}, env: platformEnv()});
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		// The replay line, then the summary every replay ends with (docs/json.md).
		const [line, summary] = result.stdout.trim().split('\n').map(text => JSON.parse(text) as {id: string; editedFrom: string; status: string});
		expect(line).toMatchObject({type: 'replay', editedFrom: original.id, status: 'answered'});
		expect(summary).toMatchObject({type: 'summary', total: 1, done: 1, failed: 0});
		if (!line) {
			throw new Error('no replay line');
		}

		expect(line.id).not.toBe(original.id);
		const copy = await show(line.id);
		expect(copy).toMatchObject({status: 'answered', editedFrom: original.id, chatId: original.chatId});
		expect(copy.body.id).toBe(line.id);
		expect(copy.body.payload.userMessage.text).toBe('What does it cost?');
		expect((await show(original.id)).body.payload.userMessage.text).toBe('What does the keeper write?');
	});

	it('refuses --edit without a terminal, naming --set, and a --set value that is not JSON', async () => {
		const edit = await runCommand(replayCommand, {argv: [original.id], flags: {dataDir: directory, edit: true}, env: platformEnv()});
		expect(edit.code).toBe(1);
		expect(edit.stderr).toContain('--set path=json');
		const bad = await runCommand(replayCommand, {argv: [original.id], flags: {dataDir: directory, set: ['payload.x=not json']}, env: platformEnv()});
		expect(bad.code).toBe(1);
		expect(bad.stderr).toContain('must be JSON');
	});
});

describe('events replay --edit', () => {
	it('opens the body in $EDITOR, checks it is JSON, stores and processes the edited copy', async () => {
		const editor = path.join(tempDataDir(), 'editor.sh');
		writeFileSync(editor, '#!/bin/sh\nsed -i \'s/What does the keeper write?/Edited in the editor/\' "$1"\n');
		chmodSync(editor, 0o755);
		const result = await runCommand(replayCommand, {argv: [original.id], flags: {dataDir: directory, edit: true}, env: {...platformEnv(), EDITOR: editor, VISUAL: ''}, interactive: true});
		expect(result.stderr).toBe('');
		const id = /as (evt_\w+) and replayed it: answered/.exec(result.stdout)?.[1] ?? '';
		expect(id).not.toBe('');
		expect((await show(id)).body.payload.userMessage.text).toBe('Edited in the editor');
		const broken = path.join(tempDataDir(), 'broken.sh');
		writeFileSync(broken, '#!/bin/sh\nprintf "{ not json" > "$1"\n');
		chmodSync(broken, 0o755);
		const refused = await runCommand(replayCommand, {argv: [original.id], flags: {dataDir: directory, edit: true}, env: {...platformEnv(), EDITOR: broken, VISUAL: ''}, interactive: true});
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('is not valid JSON');
	});
});
