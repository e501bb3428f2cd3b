/**
 * `serve` on a full disk (its data directory on a real 6 MB tmpfs, filled to the last byte): it
 * stays up, new deliveries get 503, /readyz names the full disk, answers pause, and everything
 * resumes by itself when space is freed — also after a restart on the still-full disk. Every
 * chat gets its answer once and no apology. Needs root (mount); skipped with one line otherwise.
 */
import {closeSync, openSync, rmSync, statfsSync, writeSync} from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import {post, startModel} from '../receiver/helpers.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {mountTmpfs, rootOnly} from '../support/root.js';
import {serveChildren, serveEnv, type ServeChild} from '../support/serve.js';
import {waitFor} from '../support/wait.js';

const runs = rootOnly('The full-disk serve test');

let platform: LocalPlatform;
let model: Awaited<ReturnType<typeof startModel>>;
let user: PlatformClient;
const serves = serveChildren();
const cleanups: Array<() => void> = [];
const answerText = 'The tide tables are in the harbour office.';

async function startServe(dataDir: string): Promise<ServeChild> {
	return serves.start(['--admin-port', '0', '--data-dir', dataDir], serveEnv(platform));
}

/** A real assistant message to answer. */
async function assistantMessage(): Promise<{chatId: string; messageId: string}> {
	const chat = await user.createChat({title: 'Disk', assistantId: platform.assistantId});
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Where are the tide tables?'});
	const history = await user.getChatMessages(chat.id);
	const messageId = history.messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
	await waitFor(() => platform.message(messageId)?.stoppedStreamingAt, {what: 'the built-in answer'});
	return {chatId: chat.id, messageId};
}

async function deliver(serve: ServeChild, target: {chatId: string; messageId: string}, id?: string): Promise<{status: number; id: string}> {
	const event = buildTestEvent('external-module-chosen', {chatId: target.chatId, assistantMessageId: target.messageId, text: `Where are the tide tables? ${'t'.repeat(3000)}`, userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId, ...(id === undefined ? {} : {id})});
	const delivery = signDelivery(event, platform.endpointSecret);
	const answer = await post(`${serve.url}/webhook`, delivery.body, delivery.headers);
	return {status: answer.status, id: event.id};
}

async function readyz(serve: ServeChild): Promise<{status: number; body: {ready?: boolean; reasons?: string[]}}> {
	const response = await fetch(`${serve.adminUrl}/readyz`);
	return {status: response.status, body: await response.json() as {ready?: boolean; reasons?: string[]}};
}

/**
 * Fills the file system of `directory` to its last byte. The serve running there may write while
 * it fills: it writes what is free, then what is left, until the file system refuses (ENOSPC).
 */
function fill(directory: string): string {
	const file = path.join(directory, 'filler');
	const descriptor = openSync(file, 'w');
	try {
		for (let round = 0; round < 64; round++) {
			const {bavail, bsize} = statfsSync(directory);
			const free = bavail * bsize;
			if (free === 0) {
				break;
			}

			try {
				writeSync(descriptor, Buffer.alloc(free));
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') {
					throw error;
				}
			}
		}
	} finally {
		closeSync(descriptor);
	}

	return file;
}

/** PATCH requests that wrote `messageId`'s text (the answer or the apology). */
function writesOf(messageId: string): number {
	return platform.requests.filter(request => request.method === 'PATCH' && request.path.startsWith(`/messages/${messageId}`)).length;
}

beforeAll(async () => {
	model = await startModel({content: answerText});
	platform = (await startPlatform({llmUrl: model.url})).platform;
	user = clientFor(platform);
});

afterEach(async () => {
	await serves.stopAll();
	for (const cleanup of cleanups.splice(0).reverse()) {
		cleanup();
	}
});

afterAll(async () => {
	await user.close();
	await platform.close();
	await model.close();
});

describe.runIf(runs)('serve on a full disk (a 6 MB tmpfs)', () => {
	it('answers 503 with /readyz naming the full disk, stays up, resumes when space is freed, and after a restart on the full disk; every answer written once', async () => {
		const fs = mountTmpfs(6 * 1024 * 1024);
		cleanups.push(() => {
			fs.unmount();
		});
		const first = await startServe(fs.directory);
		const before = await assistantMessage();
		const stored = await deliver(first, before);
		expect(stored.status).toBe(200);
		await waitFor(() => first.events().some(line => line.stage === 'answered' && line.eventId === stored.id), {what: 'the first answer'});

		// The disk fills to its last byte: deliveries get 503, nothing is stored, serve stays up.
		let filler = fill(fs.directory);
		const waiting = await assistantMessage();
		const refused = await deliver(first, waiting);
		expect(refused.status).toBe(503);
		const down = await readyz(first);
		expect(down.status).toBe(503);
		expect(down.body.reasons?.join(' ')).toMatch(/disk .* is full/);
		expect(first.child.exitCode).toBeNull();

		// Space returns: the platform's redelivery of the same event is stored and answered.
		rmSync(filler);
		await waitFor(async () => (await readyz(first)).status, {until: status => status === 200, what: '/readyz ready after space returned'});
		expect((await deliver(first, waiting, refused.id)).status).toBe(200);
		await waitFor(() => first.events().some(line => line.stage === 'answered' && line.eventId === refused.id), {what: 'the answer after space returned'});

		// A restart on the full disk: it starts, refuses with 503, and resumes once space is freed.
		filler = fill(fs.directory);
		first.child.kill('SIGTERM');
		await first.closed;
		// Should it not, how it ended says why (a signal would be the native code's: SIGBUS, SIGABRT).
		expect(first.child.exitCode, `serve stopped on the full disk with signal ${String(first.child.signalCode)}: ${first.stderr().slice(-600)}`).toBe(0);
		const second = await startServe(fs.directory);
		const later = await assistantMessage();
		const again = await deliver(second, later);
		expect(again.status).toBe(503);
		expect((await readyz(second)).body.reasons?.join(' ')).toMatch(/disk .* is full/);
		rmSync(filler);
		await waitFor(async () => (await readyz(second)).status, {until: status => status === 200, what: '/readyz ready after the restart'});
		expect((await deliver(second, later, again.id)).status).toBe(200);
		await waitFor(() => second.events().some(line => line.stage === 'answered' && line.eventId === again.id), {what: 'the answer after the restart'});
		expect(second.child.exitCode).toBeNull();

		for (const target of [before, waiting, later]) {
			expect(platform.message(target.messageId)?.text).toBe(answerText);
			expect(writesOf(target.messageId)).toBe(1);
		}
	});
});
