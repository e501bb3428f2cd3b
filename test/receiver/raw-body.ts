/**
 * A signed body that is not valid UTF-8, through a receiver on a given backend: accepted, stored
 * byte for byte, forwarded and replayed (forwarded again) with its exact bytes and a signature
 * that still matches the one the platform made. Shared by the memory, journal and Redis suites.
 */
import {mkdtempSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {expect} from 'vitest';
import eventsExport from '../../source/commands/events/export.js';
import {PlatformClient} from '../../source/platform/client.js';
import {signWebhookBody} from '../../source/platform/webhook-signature.js';
import type {EventBackend, StoredEvent} from '../../source/receiver/store/backend.js';
import {bodyBytes} from '../../source/receiver/intake/body.js';
import {createReceiver} from '../../source/receiver/server.js';
import {startRecordingServer} from '../support/recording-server.js';
import {memoryStream, runCommand} from '../support/run-command.js';
import {defined} from '../support/defined.js';
import {waitFor} from '../support/wait.js';
import {newEventId, post} from './helpers.js';

export const rawBodySecret = 'whsec_raw_bytes';

/** A user-message event whose text holds a Latin-1 byte (0xE9) and a lone continuation byte (0x80): valid JSON, not UTF-8. */
export function latin1Body(id = newEventId()): Buffer {
	const head = `{"id":"${id}","version":"1.0.0","event":"platform.chat.user-message.created","createdAt":"${Math.floor(Date.now() / 1000)}","userId":"user_test","companyId":"company_test","payload":{"chatId":"chat_raw","text":"caf`;
	return Buffer.concat([Buffer.from(head), Buffer.from([0xE9, 0x20, 0x80]), Buffer.from('"}}\n')]);
}

/** A UTF-8 body with a leading byte-order mark (signed like any other byte). */
export function bomBody(id = newEventId()): Buffer {
	const text = `{"id":"${id}","version":"1.0.0","event":"platform.chat.user-message.created","createdAt":"${Math.floor(Date.now() / 1000)}","payload":{"chatId":"chat_bom","text":"with a BOM"}}`;
	return Buffer.concat([Buffer.from([0xEF, 0xBB, 0xBF]), Buffer.from(text)]);
}

export function signedHeaders(body: Buffer): Record<string, string> {
	return {'x-platform-signature': signWebhookBody(body, rawBodySecret), 'x-platform-created-at': String(Math.floor(Date.now() / 1000)), 'x-platform-version': '1.0.0'};
}

/**
 * Runs the round trip on `backend` (closed at the end) and returns the stored events, for the
 * caller's backend-specific checks (export, show). `ids` name the bodies' event ids.
 */
export async function rawBodyRoundTrip(backend: EventBackend, bodies: Array<{id: string; body: Buffer}>): Promise<StoredEvent[]> {
	const handler = await startRecordingServer();
	const client = new PlatformClient({baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test_key', appId: 'app_test'});
	const receiver = createReceiver({client, secrets: [rawBodySecret], backend, forward: {url: `${handler.url}/hooks`, secret: rawBodySecret, retries: 0}});
	try {
		const {url} = await receiver.listen({port: 0});
		const stored: StoredEvent[] = [];
		for (const [index, {id, body}] of bodies.entries()) {
			const headers = signedHeaders(body);
			expect((await post(`${url}/webhook`, body, headers)).status).toBe(200);
			const event = defined(await waitFor(async () => receiver.event(id), {until: found => found?.status === 'answered', what: `the forward of ${id}`}), 'the stored event');
			expect(bodyBytes(event).equals(body)).toBe(true);
			// Forwarded with the exact bytes: signed again with the same secret, the signature is the platform's.
			const forwarded = handler.requests[index];
			expect(forwarded?.raw.equals(body)).toBe(true);
			expect(forwarded?.headers['x-platform-signature']).toBe(headers['x-platform-signature']);
			stored.push(event);
		}

		// A replay sends the same bytes again.
		const [first] = bodies;
		if (first !== undefined) {
			const before = handler.requests.length;
			const replayed = await receiver.replay(first.id);
			expect(['done', 'queued']).toContain(replayed.outcome);
			await waitFor(() => handler.requests.length > before, {what: 'the replayed forward'});
			expect(handler.requests[before]?.raw.equals(first.body)).toBe(true);
			expect(handler.requests[before]?.headers['x-platform-signature']).toBe(signWebhookBody(first.body, rawBodySecret));
			await waitFor(async () => receiver.event(first.id), {until: found => found?.status === 'answered' && found.attempts === 2, what: 'the replay to end'});
		}

		return stored;
	} finally {
		await receiver.close(2000);
		await client.close();
		await handler.close();
	}
}

/** `events export` of `id` from `flags`' store, to stdout (as bytes) and to a file. */
export async function exportedBytes(id: string, flags: Record<string, unknown>): Promise<{stdout: Buffer; file: Buffer}> {
	const stdout = memoryStream();
	const chunks: Buffer[] = [];
	stdout.on('data', (chunk: Buffer) => {
		chunks.push(chunk);
	});
	const printed = await runCommand(eventsExport, {argv: [id], flags, stdout});
	expect(printed.code, printed.stderr).toBe(0);
	const output = join(mkdtempSync(join(tmpdir(), 'platform-tui-export-')), 'body.json');
	const written = await runCommand(eventsExport, {argv: [id], flags: {...flags, output}});
	expect(written.code, written.stderr).toBe(0);
	return {stdout: Buffer.concat(chunks), file: readFileSync(output)};
}
