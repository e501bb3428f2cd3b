/**
 * Ack latency of chosen-module events while each completion takes 2 s (part of the receiver
 * benchmark): the local platform runs in this process with `llmUrl` pointing at a model that
 * answers after 2 s; 16 chosen events for real assistant messages are sent one after another to
 * `serve` (concurrency 8), and the time to each 200 is printed next to the time until its answer
 * was written.
 */
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {Pool} from 'undici';
import {startLocalPlatform} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import {defined} from '../support/defined.js';
import {fmt, percentile, secret, startServe} from './receiver-harness.js';

/** An OpenAI-compatible model that answers after `delayMs`. */
async function slowModel(): Promise<{url: string; setSlow(ms: number): void; close(): Promise<void>}> {
	let delayMs = 0;
	let content = 'A quick answer.';
	const server: Server = createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			setTimeout(() => {
				response.writeHead(200, {'content-type': 'application/json'});
				response.end(JSON.stringify({choices: [{index: 0, message: {role: 'assistant', content}, finish_reason: 'stop'}]}));
			}, delayMs);
		});
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
		setSlow(ms) {
			delayMs = ms;
			content = 'A slow answer.';
		},
		async close() {
			server.closeAllConnections();
			await new Promise(resolve => {
				server.close(resolve);
			});
		},
	};
}

export async function ackLatency(configDir: string): Promise<void> {
	const events = 16;
	const completionMs = 2000;
	console.log(`\nAck latency of chosen-module events while each completion takes ${completionMs / 1000} s (${events} events, serve --concurrency 8)`);
	const model = await slowModel();
	const platform = await startLocalPlatform({llmUrl: model.url, ingestionStepMs: 10, assistantStepMs: 1});
	const client = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, userId: platform.userId, companyId: platform.companyId});
	const serve = await startServe(platform, configDir, path.join(configDir, 'serve-chosen.log'), [], ['--concurrency', '8']);
	try {
		// Real assistant messages to answer (made while no module is registered, with a quick model).
		const targets: Array<{chatId: string; messageId: string}> = [];
		for (let index = 0; index < events; index++) {
			const chat = await client.createChat({title: `Bench ${index}`, assistantId: platform.assistantId});
			await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Hello?'});
			const history = await client.getChatMessages(chat.id);
			targets.push({chatId: chat.id, messageId: defined(defined(history.messages.find(message => message.role === 'ASSISTANT'), 'the assistant message').id, 'its id')});
		}

		// Wait until the built-in answers are written, so they do not count as ours.
		for (const target of targets) {
			for (let attempt = 0; attempt < 200 && !platform.message(target.messageId)?.stoppedStreamingAt; attempt++) {
				await sleep(10);
			}
		}

		model.setSlow(completionMs);
		const pool = new Pool(new URL(serve.url).origin, {connections: 1});
		const acks: number[] = [];
		const ackedAt = new Map<string, number>();
		for (const target of targets) {
			const event = buildTestEvent('external-module-chosen', {
				chatId: target.chatId,
				assistantMessageId: target.messageId,
				text: 'What does the lighthouse keeper write?',
				userId: platform.userId,
				companyId: platform.companyId,
				assistantId: platform.assistantId,
			});
			const delivery = signDelivery(event, secret);
			const sent = performance.now();
			const response = await pool.request({path: '/webhook', method: 'POST', headers: delivery.headers, body: delivery.body});
			await response.body.text();
			const acked = performance.now();
			acks.push(acked - sent);
			ackedAt.set(target.messageId, acked);
			if (response.statusCode !== 200) {
				console.log(`  unexpected status ${response.statusCode}`);
			}
		}

		await pool.close();
		const answered: number[] = [];
		const deadline = Date.now() + 60_000;
		for (const target of targets) {
			while (platform.message(target.messageId)?.text !== 'A slow answer.' && Date.now() < deadline) {
				await sleep(10);
			}

			answered.push(performance.now() - defined(ackedAt.get(target.messageId), 'the ack time'));
		}

		const unanswered = targets.filter(target => platform.message(target.messageId)?.text !== 'A slow answer.').length;
		acks.sort((a, b) => a - b);
		answered.sort((a, b) => a - b);
		console.log(`  ack (time to 200): p50 ${fmt(defined(acks[Math.floor(acks.length / 2)], 'an ack'))} ms  p99 ${fmt(percentile(acks, 0.99))} ms  max ${fmt(defined(acks.at(-1), 'an ack'))} ms`);
		console.log(`  answer written after the ack: min ${fmt(defined(answered[0], 'an answer') / 1000, 2)} s  max ${fmt(defined(answered.at(-1), 'an answer') / 1000, 2)} s${unanswered > 0 ? `  (${unanswered} never answered!)` : ''}`);
		console.log(`  RESULT max ack / completion time: ${fmt(defined(acks.at(-1), 'an ack') / completionMs, 4)} (the acknowledgement does not wait for the 2 s completion)`);
	} finally {
		await serve.stop('SIGTERM');
		await client.close();
		await platform.close();
		await model.close();
	}
}
