/** The webhook receiver, UI-free: a node:http server that reports typed events. */
export {createReceiver, DrainTimeoutError, receiverErrors, WebhookReceiver} from './server.js';
export type {CloseResult, ListenOptions, ListenResult, ReceiverOptions} from './server.js';
export type * from './events.js';
export {EventIdStore, defaultDedupeMaxEntries, defaultDedupeTtlMs} from './intake/dedupe.js';
export type {EventIdStoreOptions} from './intake/dedupe.js';
export {answerChosenEvent, missingTextReason} from './answer/answer.js';
export type {AnswerOptions, FailureCleanup, JobOutcome, StageUpdate} from './answer/answer-types.js';
export {
	apologyText,
	buildContext,
	completionTemperature,
	contextCutCharacters,
	contextSeparator,
	logTexts,
	noResultsContext,
	searchLimit,
	systemMessage,
} from './answer/answer-text.js';
export {foldSteps, stepNames} from './answer/answer-steps.js';
export {parseChosenEvent} from './intake/chosen-event.js';
export type {ChosenJob} from './intake/chosen-event.js';
export {platformPort} from './answer/platform-port.js';
export {answerStoredEvent, storedEventJob} from './answer/answer-job.js';
export {createMemoryBackend} from './store/memory-backend.js';
export type {MemoryBackendOptions} from './store/memory-backend.js';
export {checkHeaders, intakeBody} from './intake/intake.js';
export type {DeliveryHeaders, IntakeConfig, IntakeDecision} from './intake/intake.js';
export type {AnswerPort, PortCall} from './answer/answer-port.js';
export {buildTestEvent, parseTestEventKind, randomId, signDelivery} from './intake/test-event.js';
export type {TestEventKind, TestEventOptions} from './intake/test-event.js';
