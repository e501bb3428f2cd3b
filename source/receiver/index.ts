/** The webhook receiver, UI-free: a node:http server that reports typed events. */
export {createReceiver, DrainTimeoutError, receiverErrors, WebhookReceiver} from './server.js';
export type {CloseResult, ListenOptions, ListenResult, ReceiverOptions} from './server.js';
export type * from './events.js';
export {EventIdStore, defaultDedupeMaxEntries, defaultDedupeTtlMs} from './dedupe.js';
export type {EventIdStoreOptions} from './dedupe.js';
export {
	answerChosenEvent,
	apologyText,
	buildContext,
	completionTemperature,
	contextCutCharacters,
	contextSeparator,
	cutCharacters,
	logTexts,
	noResultsContext,
	parseChosenEvent,
	searchLimit,
	systemMessage,
} from './process.js';
export type {ChosenJob, JobOutcome} from './process.js';
export {buildTestEvent, parseTestEventKind, randomId, signDelivery} from './test-event.js';
export type {TestEventKind, TestEventOptions} from './test-event.js';
