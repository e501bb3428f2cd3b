/**
 * The processing tests' harness: a local platform with an in-process receiver whose client names
 * the event's user and company, the question a user asks, the answer awaited, the stages logged.
 */
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';
import type {Message} from '../../source/platform/types.js';
import {createReceiver, type WebhookReceiver} from '../../source/receiver/server.js';
import type {ReceiverEvent, StageEvent} from '../../source/receiver/events.js';
import {closersAfterEach} from '../support/cleanups.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {startModel} from './helpers.js';

export type Harness = {
	platform: LocalPlatform;
	/** The test's own client (acts as the platform user). */
	user: PlatformClient;
	/** The receiver's client: no default user or company, so every call must name the event's. */
	receiverClient: PlatformClient;
	receiver: WebhookReceiver;
	events: ReceiverEvent[];
	close(): Promise<void>;
};

export async function harness(options: {llmUrl?: string; concurrency?: number; latencyMs?: number} = {}): Promise<Harness> {
	const {platform} = await startPlatform({...(options.llmUrl ? {llmUrl: options.llmUrl} : {}), ...(options.latencyMs ? {latencyMs: options.latencyMs} : {})});
	const user = clientFor(platform);
	const receiverClient = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, retries: 1, retryBaseMs: 10, retryCapMs: 20});
	const receiver = createReceiver({client: receiverClient, secrets: [platform.endpointSecret], concurrency: options.concurrency ?? 8, cleanupTimeoutMs: 5000});
	const events: ReceiverEvent[] = [];
	receiver.on('event', event => events.push(event));
	const {url} = await receiver.listen({port: 0});
	platform.setWebhookUrl(`${url}/webhook`);
	return {
		platform,
		user,
		receiverClient,
		receiver,
		events,
		async close() {
			await receiver.close(0);
			await receiverClient.close();
			await user.close();
			await platform.close();
		},
	};
}

/**
 * `harness` and `startModel` for a describe block whose tests each start their own: every harness
 * and model started is closed after its test, newest first (the harness before its model).
 */
export function closedAfterEach(): {harness: typeof harness; startModel: typeof startModel} {
	const closers = closersAfterEach();
	return {
		async harness(options) {
			const started = await harness(options);
			closers.push(async () => started.close());
			return started;
		},
		async startModel(options) {
			const started = await startModel(options);
			closers.push(async () => started.close());
			return started;
		},
	};
}

/** Sends a space message and returns the ids of the user and assistant messages. */
export async function ask(h: Harness, chatId: string, text: string): Promise<{assistantMessageId: string}> {
	await h.user.createSpaceMessage({assistantId: h.platform.assistantId, chatId, text});
	const history = await h.user.getChatMessages(chatId);
	const assistant = history.messages.filter(message => message.role === 'ASSISTANT').at(-1);
	return {assistantMessageId: defined(assistant?.id, 'the assistant message')};
}

export async function answered(h: Harness, chatId: string): Promise<Message> {
	return waitFor(async () => h.user.getLatestMessage(chatId), {until: message => Boolean(message.stoppedStreamingAt), what: `the answer in ${chatId}`});
}

export const stagesOf = (events: ReceiverEvent[], chatId: string) => events.filter((event): event is StageEvent => event.type === 'stage' && event.chatId === chatId);
