import type {Agent} from 'undici';
import type {AnswerPort} from '../receiver/answer/answer-port.js';
import {builtInAnswer, ReplyStreams} from './chats/assistant.js';
import type {BlobStore} from './content/blobs.js';
import {ChatStore, type ChatRecord, type MessageRecord} from './chats/chat-store.js';
import {isoNow} from './clock.js';
import {Completions, completionRoutes} from './chats/completions.js';
import {ContentStore} from './content/content-store.js';
import type {Caller, ServiceContext} from './context.js';
import {announceMessage, externalAnswer} from './chats/external-answer.js';
import type {EventSocketHub} from './chats/event-socket.js';
import {eventTypes} from '../platform/types.js';
import {Ingestion} from './content/ingestion.js';
import {KeyRing, keyRoutes} from './http/keys.js';
import {memoryAnswerPort} from './chats/memory-answer-port.js';
import {MessageLogStore, messageLogRoutes} from './chats/message-logs.js';
import {MessageService, messageRoutes} from './chats/messages.js';
import type {ResolvedOptions} from './options.js';
import {Router} from './http/router.js';
import {SearchService, contentRoutes} from './content/search.js';
import {ChunkIndex} from './content/search-index.js';
import {SpaceDirectory, spaceRoutes} from './chats/spaces.js';
import type {WebhookDispatcher} from './chats/webhooks.js';

export const userAgent = 'platform-tui-local/0.1.0';

/** Every resource of the local platform, wired together, and the router over their routes. */
export type Services = {
	keys: KeyRing;
	spaces: SpaceDirectory;
	chats: ChatStore;
	logs: MessageLogStore;
	messages: MessageService;
	contents: ContentStore;
	ingestion: Ingestion;
	search: SearchService;
	completions: Completions;
	/** The in-memory answer port the built-in assistant writes through. */
	port: AnswerPort;
	router: Router;
};

export type ServiceWiring = {
	context: ServiceContext;
	options: ResolvedOptions;
	blobs: BlobStore;
	agent: Agent;
	dispatcher: WebhookDispatcher;
	eventSocket: EventSocketHub;
	/** The registered application URL, read at the moment a message is answered. */
	webhookUrl(): string | undefined;
	llmModel: string | undefined;
	llmApiKey: string | undefined;
};

export function buildServices(wiring: ServiceWiring): Services {
	const {context, options} = wiring;
	const {clock} = context;
	const keys = new KeyRing(clock, options.keyOverlapMs, context.limits.maxKeys, options.apiKey);
	const spaces = new SpaceDirectory(isoNow(clock), () => wiring.webhookUrl());
	const chats = new ChatStore(context);
	const logs = new MessageLogStore(context, chats);
	const chatFor = (chatId: string, caller: Caller): ChatRecord => chats.chatFor(chatId, caller);
	const contents = new ContentStore(context, chatFor);
	const index = new ChunkIndex(context.limits.maxQueryTerms);
	const ingestion = new Ingestion(context, wiring.blobs, contents, index, options.ingestionStepMs);
	const search = new SearchService(index, chatFor);
	const completionSettings = {llmUrl: options.llmUrl, llmModel: wiring.llmModel, llmApiKey: wiring.llmApiKey, userAgent};
	const completions = new Completions(context, completionSettings, wiring.agent);
	const port = memoryAnswerPort({chats, clock, logs, search, completions});
	const streams = new ReplyStreams(chats, clock, context.signal);
	const answer = (chat: ChatRecord, userMessage: MessageRecord, assistantMessage: MessageRecord, caller: Caller): void => {
		const url = wiring.webhookUrl();
		const parts = {dispatcher: wiring.dispatcher, publish: wiring.eventSocket.publish.bind(wiring.eventSocket), chats, clock, signal: context.signal, module: () => spaces.externalModule};
		// The external module answers when it is registered: by URL, or by a stream that takes its event.
		if (url !== undefined || wiring.eventSocket.subscribed(eventTypes.externalModuleChosen)) {
			context.track(externalAnswer(url, {chat, userMessage, assistantMessage, caller}, parts));
			return;
		}

		context.track(announceMessage(undefined, {chat, userMessage, caller}, parts));

		userMessage.debugInfo = {chosenModule: 'DocumentSearch', assistantMessageId: assistantMessage.id};
		const job = {chatId: chat.id, userMessage, assistantMessage, userId: caller.userId, companyId: caller.companyId};
		context.track(builtInAnswer(job, port, context.signal, {chats, streams}));
	};

	const messages = new MessageService(context, chats, logs, () => spaces.assistantId, answer, streams);
	const router = new Router([
		...keyRoutes(keys, clock, event => {
			context.emit(event);
		}),
		...spaceRoutes(spaces),
		...messageRoutes(messages),
		...messageLogRoutes(logs),
		...contentRoutes(contents, search, async contentId => wiring.blobs.remove(contentId)),
		...completionRoutes(completions, completionSettings),
	]);
	return {keys, spaces, chats, logs, messages, contents, ingestion, search, completions, port, router};
}
