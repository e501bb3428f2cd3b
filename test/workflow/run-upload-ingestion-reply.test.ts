import {describe, expect, it} from 'vitest';
import {CancelledError} from '../../source/errors.js';
import {IngestionFailedError, IngestionTimeoutError, ReplyTimeoutError} from '../../source/workflow/errors.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {patchMessage, recorder, startModule, startProxy} from './helpers.js';
import {platform, said, uploadPlatform} from './run-upload-support.js';

describe('runUpload against the local platform', () => {
	const {cleanups, folder, options} = uploadPlatform();

	it('fails naming content id, file name and state when ingestion fails', async () => {
		const dir = folder({'broken.pdf': '%PDF-1.7\nthis is not really a pdf\n%%EOF\n', 'good.txt': 'fine text'});
		const {onEvent, ofType} = recorder();
		const error = await runUpload(options({folder: dir}), onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(IngestionFailedError);
		const uploaded = defined(ofType('file-upserted').find(event => event.name === 'broken.pdf'));
		expect((error as IngestionFailedError).contentId).toBe(uploaded.contentId);
		expect((error as Error).message).toBe(`Ingestion failed for content ${uploaded.contentId} (broken.pdf) with state FAILED_PARSING`);
		expect(said(error)).toBe(`Ingestion failed for content ${uploaded.contentId} (broken.pdf) with state FAILED_PARSING. Check that the file is readable and of a supported type, or pass --keep-going to ask about the other files.`);
		expect(ofType('ingestion-state').find(event => event.name === 'broken.pdf' && event.final)).toMatchObject({state: 'FAILED_PARSING', contentId: uploaded.contentId});
		expect(ofType('message-sent')).toHaveLength(0);
	});

	it('times out listing the pending content ids sorted', async () => {
		const slow = (await startPlatform({ingestionStepMs: 60_000})).platform;
		cleanups.push(async () => slow.close());
		const client = clientFor(slow);
		cleanups.push(async () => client.close());
		const {onEvent, ofType} = recorder();
		const dir = folder({'one.txt': '1', 'two.txt': '2', 'three.txt': '3'});
		const error = await runUpload({client, assistantId: slow.assistantId, folder: dir, prompt: 'q', pollIntervalMs: 20, ingestionTimeoutMs: 150}, onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(IngestionTimeoutError);
		const ids = ofType('file-upserted').map(event => event.contentId).sort();
		expect((error as IngestionTimeoutError).pending).toEqual(ids);
		expect((error as Error).message).toBe(`Ingestion timed out after 0.15 s with 3 contents pending: ${ids.join(', ')}`);
		expect(said(error)).toBe(`Ingestion timed out after 0.15 s with 3 contents pending: ${ids.join(', ')}. Raise --ingestion-timeout to wait longer, or pass --keep-going to ask about the files that finished.`);
		expect(ofType('ingestion-started')).toEqual([{type: 'ingestion-started', total: 3, timeoutMs: 150}]);
		// How many rounds fit in 150 ms depends on the machine (a loaded one may end the first round
		// at the deadline); every round that ended says all three were still pending.
		for (const round of ofType('ingestion-round')) {
			expect([...round.pending].sort()).toEqual(ids);
		}
	});

	it('skips empty search results and keeps waiting', async () => {
		let empties = 0;
		const proxy = await startProxy(platform, {
			answer(call) {
				if (call.path === '/content/search' && empties < 3) {
					empties++;
					return {status: 200, body: []};
				}

				return undefined;
			},
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: folder({'a.txt': 'warranty two years'})}, proxy.url), onEvent);
		expect(empties).toBe(3);
		expect(ofType('ingestion-round').length).toBeGreaterThanOrEqual(4);
		expect(ofType('ingestion-round').slice(0, 3).every(round => round.finished === 0)).toBe(true);
		expect(result.contentIds).toHaveLength(1);
	});

	it('times out naming the chat when the reply never completes', async () => {
		const module = await startModule();
		cleanups.push(async () => module.close());
		platform.setWebhookUrl(module.url);
		const {onEvent, ofType} = recorder();
		const error = await runUpload(options({folder: folder({'a.txt': 'a'}), replyTimeoutMs: 250}), onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(ReplyTimeoutError);
		const chatId = defined(ofType('chat-created')[0]).chatId;
		expect((error as Error).message).toBe(`Timed out after 0.25 s waiting for the assistant's reply in chat ${chatId}`);
		expect(said(error)).toBe(`Timed out after 0.25 s waiting for the assistant's reply in chat ${chatId}. Raise --reply-timeout to wait longer; the chat keeps the uploaded files.`);
		expect((error as ReplyTimeoutError).chatId).toBe(chatId);
		expect(module.events).toContain('platform.chat.external-module.chosen');
	});

	it('shows the reply as it grows and takes the final text once streaming stopped', async () => {
		let client: ReturnType<typeof clientFor> | undefined;
		const module = await startModule(async event => {
			const {chatid: chatId, assistantMessage} = event.payload;
			client ??= clientFor(platform);
			await client.modifyMessage(assistantMessage.id, {chatId, text: 'The warranty'});
			// Wait until the workflow has polled the partial text, then finish the message.
			const polledFrom = platform.requests.length;
			await waitFor(() => platform.requests.slice(polledFrom).some(record => record.path === `/space/${chatId}/messages/latest`), {what: 'a poll'});
			const at = new Date().toISOString();
			await client.modifyMessage(assistantMessage.id, {chatId, text: 'The warranty lasts two years.', stoppedStreamingAt: at, completedAt: at});
		});
		cleanups.push(async () => {
			await module.close();
			await client?.close();
		});
		platform.setWebhookUrl(module.url);
		const {events, onEvent} = recorder();
		const result = await runUpload(options({folder: folder({'a.txt': 'a'})}), onEvent);
		const replies = events.filter(event => event.type === 'reply-progress' || event.type === 'reply-complete');
		expect(replies.map(event => [event.type, 'text' in event ? event.text : ''])).toEqual([
			['reply-progress', 'The warranty'],
			['reply-complete', 'The warranty lasts two years.'],
		]);
		expect(result.reply).toBe('The warranty lasts two years.');
		expect(result.history.map(message => message.role)).toEqual(['USER', 'ASSISTANT']);
	});

	it('takes an empty reply when the finished message has no text', async () => {
		const module = await startModule(async event => {
			await patchMessage(platform, event.payload.assistantMessage.id, {chatId: event.payload.chatid, stoppedStreamingAt: new Date().toISOString()});
		});
		cleanups.push(async () => module.close());
		platform.setWebhookUrl(module.url);
		const result = await runUpload(options({folder: folder({'a.txt': 'a'})}));
		expect(result.reply).toBe('');
		expect(result.history).toEqual([{role: 'USER', text: 'How long is the warranty?'}, {role: 'ASSISTANT', text: ''}]);
	});

	it('cancels during the ingestion wait', async () => {
		const slow = (await startPlatform({ingestionStepMs: 60_000})).platform;
		cleanups.push(async () => slow.close());
		const client = clientFor(slow);
		cleanups.push(async () => client.close());
		const controller = new AbortController();
		const running = runUpload({client, assistantId: slow.assistantId, folder: folder({'a.txt': 'a'}), prompt: 'q', pollIntervalMs: 20, signal: controller.signal}, event => {
			if (event.type === 'ingestion-round') {
				controller.abort('SIGINT');
			}
		});
		await expect(running).rejects.toBeInstanceOf(CancelledError);
		expect(slow.requests.some(record => record.path === '/space/message')).toBe(false);
	});
});
