/** The webhook receiver, UI-free: a node:http server that reports typed events. */
export {createReceiver, DrainTimeoutError, receiverErrors, WebhookReceiver} from './server.js';
export type {CloseResult, ListenOptions, ListenResult, ReceiverOptions} from './server.js';
export type * from './events.js';
export {EventIdStore, defaultDedupeMaxEntries, defaultDedupeTtlMs} from './dedupe.js';
export type {EventIdStoreOptions} from './dedupe.js';
export {answerChosenEvent, missingTextReason} from './answer.js';
export type {AnswerOptions, FailureCleanup, JobOutcome, StageUpdate} from './answer.js';
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
} from './answer-text.js';
export {foldSteps, stepNames} from './answer-steps.js';
export {parseChosenEvent} from './chosen-event.js';
export type {ChosenJob} from './chosen-event.js';
export {platformPort} from './platform-port.js';
export {answerStoredEvent, storedEventJob} from './answer-job.js';
export {createMemoryBackend} from './memory-backend.js';
export type {MemoryBackendOptions} from './memory-backend.js';
export {checkHeaders, intakeBody} from './intake.js';
export type {DeliveryHeaders, IntakeConfig, IntakeDecision} from './intake.js';
export type {AnswerPort, PortCall} from './answer-port.js';
export {buildTestEvent, parseTestEventKind, randomId, signDelivery} from './test-event.js';
export type {TestEventKind, TestEventOptions} from './test-event.js';
