/**
 * What the chaos run delivers to: a local platform whose completions take a while (so answers are
 * in flight when a process dies), and assistant messages for the chosen-module events to answer.
 */
import {buildTestEvent} from '../../source/receiver/intake/test-event.js';
import type {PlatformClient} from '../../source/platform/client.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startModel} from '../receiver/helpers.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import type {Planned} from './deliveries.js';

export type World = {
	platform: LocalPlatform;
	test: TestPlatform;
	model: Awaited<ReturnType<typeof startModel>>;
	close(): Promise<void>;
};

export const answerText = 'The keeper writes the weather down every night.';

export async function startWorld(): Promise<World> {
	const model = await startModel({content: answerText, delayMs: 0});
	// Every request is kept: the report counts each message's writes from the platform's log.
	const test = await startPlatform({llmUrl: model.url, limits: {maxRequestLog: 10_000_000}});
	return {
		platform: test.platform,
		test,
		model,
		async close() {
			await test.close();
			await model.close();
		},
	};
}

/** `count` assistant messages, answered by the built-in assistant first (quickly), in chats of 20. */
export async function assistantMessages(world: World, client: PlatformClient, count: number): Promise<Array<{chatId: string; messageId: string}>> {
	const found: Array<{chatId: string; messageId: string}> = [];
	for (let chatIndex = 0; found.length < count; chatIndex++) {
		const chat = await client.createChat({title: `chaos ${chatIndex + 1}`, assistantId: world.platform.assistantId});
		const size = Math.min(20, count - found.length);
		for (let index = 0; index < size; index++) {
			await client.createSpaceMessage({assistantId: world.platform.assistantId, chatId: chat.id, text: `Question ${index + 1}: what does the keeper write?`});
		}

		const ids = await waitFor(async () => (await client.getChatMessages(chat.id)).messages.filter(message => message.role === 'ASSISTANT').map(message => message.id ?? ''), {until: list => list.length >= size, timeoutMs: 60_000, what: 'the built-in answers'});
		for (const messageId of ids.slice(0, size)) {
			found.push({chatId: chat.id, messageId});
		}
	}

	await waitFor(() => found.every(({messageId}) => world.platform.message(messageId)?.stoppedStreamingAt), {timeoutMs: 60_000, what: 'every built-in answer complete'});
	return found;
}

/** Batches of events: half chosen-module events (each answering its own message), half user messages. */
export async function planEvents(world: World, rounds: number, perRound: number): Promise<Planned[][]> {
	const client = world.test.client();
	try {
		const chosenPerRound = Math.ceil(perRound / 2);
		const messages = await assistantMessages(world, client, rounds * chosenPerRound);
		const {platform} = world;
		return Array.from({length: rounds}, (_, round) => Array.from({length: perRound}, (_unused, index): Planned => {
			if (index < chosenPerRound) {
				const {chatId, messageId} = messages[(round * chosenPerRound) + index] ?? {chatId: '', messageId: ''};
				const body = buildTestEvent('external-module-chosen', {chatId, assistantMessageId: messageId, text: 'What does the keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
				return {id: body.id, kind: 'chosen', body, messageId};
			}

			const body = buildTestEvent('user-message', {text: `A user message of round ${round + 1}`});
			return {id: body.id, kind: 'user', body};
		}));
	} finally {
		await client.close();
	}
}
