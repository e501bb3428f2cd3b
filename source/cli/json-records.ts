/**
 * Every `--json` record type a command prints (docs/json.md), declared once: its zod schema and
 * the commands that print it. The run's writer (json-writer.ts) prints only a declared `type` whose
 * fields match its schema, and lists on the last line the ids named by the fields declared with
 * `touches` below; the envelope test (test/cli/json-envelope.test.ts) runs every command, and the
 * docs test (test/cli/json-docs.test.ts) checks every JSON line shown in readme.md and docs/
 * against the same schemas. The last line (`result`, `error`) is json.ts's.
 */
import * as z from 'zod';
import type {TouchedIds} from '../context.js';
import {errorLine, resultLine} from './json.js';

/** The fields whose values are ids the run touched, and the list of the last line each goes to. */
export const touchedFields = z.registry<{touches: keyof TouchedIds}>();
/** A field naming a chat, a content or an event the run touched (`touches`: the last line lists it). */
function touches<Schema extends z.ZodType>(schema: Schema, list: keyof TouchedIds): Schema {
	touchedFields.add(schema, {touches: list});
	return schema;
}

const text = z.string();
const int = z.number().int();
const count = int.nonnegative();
const ms = z.number().nonnegative();
const iso = z.string();
const id = z.string().min(1);
const ids = z.array(z.string());
/** A nested value the record passes through as it is (a stored body, a space, a step list). */
const passed = z.unknown();
const record = <Shape extends z.ZodRawShape>(shape: Shape) => z.strictObject(shape);
const planned = z.strictObject({name: text, size: count});
const chatId = touches(z.string().min(1), 'chatIds');
const contentId = touches(z.string().min(1), 'contentIds');
const eventId = touches(z.string().min(1), 'eventIds');
const contentIds = touches(z.array(z.string()), 'contentIds');
/**
 * An id in a line of a command that runs until it is stopped (serve, listen, local): the line
 * names it, and the last line does not list it, since a run of days would keep millions of ids in
 * memory for that one line.
 */
const namedId = z.string().min(1);
const plannedWithId = z.strictObject({name: text, size: count, contentId});
const failure = z.looseObject({name: text, stage: z.enum(['upload', 'ingestion']), contentId: touches(z.string(), 'contentIds').optional()});

const upload = ['upload'] as const;
const uploadAndChat = ['upload', 'chat'] as const;
const serve = ['serve'] as const;
/** Records of the receiver both serve and listen print. */
const receiving = ['serve', 'listen'] as const;
const listen = ['listen'] as const;
const local = ['local'] as const;
const replay = ['events replay'] as const;

const eventSummary = {
	id: eventId, event: text, status: text, receivedAt: iso, updatedAt: iso, chatId: chatId.optional(), durationMs: ms.optional(),
	attempts: count, nextAttemptAt: iso.optional(), error: text.optional(), note: text.optional(),
};
const receiverBase = {at: iso};

/** type → the schema of its line and the commands that print it. */
export const jsonRecords = {
	result: {schema: resultLine, commands: ['*']},
	error: {schema: errorLine, commands: ['*']},
	help: {schema: record({type: z.literal('help'), command: text, text}), commands: ['*']},
	version: {schema: record({type: z.literal('version'), version: text, node: text}), commands: ['version']},
	path: {schema: record({type: z.literal('path'), path: text}), commands: ['config path']},
	setting: {schema: record({type: z.literal('setting'), name: text, value: z.string().nullable(), source: text, env: text.optional()}), commands: ['config list', 'config get']},
	stored: {
		schema: record({type: z.literal('stored'), name: text.optional(), value: text.optional(), key: text.optional(), path: text, changed: z.boolean().optional(), envOverride: z.boolean().optional(), backup: text.optional()}),
		commands: ['config set', 'config use', 'keys set', 'local'],
	},
	profile: {
		schema: record({type: z.literal('profile'), name: text, active: z.boolean(), baseUrl: z.string().nullable(), key: z.string().nullable(), keySetAt: z.string().nullable(), keyAgeSeconds: count.nullable()}),
		commands: ['config profiles'],
	},
	'local-platform': {
		schema: record({type: z.literal('local-platform'), baseUrl: text, receiverUrl: text.optional(), apiKey: text.optional(), appId: text.optional(), userId: text.optional(), companyId: text.optional(), assistantId: text.optional(), endpointSecret: text.optional()}),
		commands: ['local', 'upload'],
	},
	'files-listed': {schema: record({type: z.literal('files-listed'), folder: text, files: z.array(z.strictObject({name: text, size: count, mimeType: text})), totalBytes: count, skipped: z.array(z.strictObject({name: text, kind: text}))}), commands: upload},
	'space-loaded': {schema: record({type: z.literal('space-loaded'), space: z.looseObject({name: text})}), commands: upload},
	'space-warning': {schema: record({type: z.literal('space-warning'), message: text}), commands: upload},
	'chat-creating': {schema: record({type: z.literal('chat-creating'), title: text}), commands: upload},
	'chat-created': {schema: record({type: z.literal('chat-created'), chatId, title: text, durationMs: ms, resume: text.optional()}), commands: upload},
	'chat-checked': {schema: record({type: z.literal('chat-checked'), chatId, messages: count, durationMs: ms, resume: text.optional()}), commands: upload},
	'sync-planned': {
		schema: record({
			type: z.literal('sync-planned'), dryRun: z.boolean(), chatId: chatId.optional(), manifest: text.optional(),
			upload: z.array(planned), replace: z.array(planned), awaiting: z.array(plannedWithId), unchanged: z.array(plannedWithId),
			delete: z.array(z.strictObject({name: text, contentId})).optional(),
		}),
		commands: upload,
	},
	'content-deleted': {schema: record({type: z.literal('content-deleted'), name: text, contentId}), commands: upload},
	'delete-failed': {schema: record({type: z.literal('delete-failed'), name: text, contentId, message: text}), commands: upload},
	'file-started': {schema: record({type: z.literal('file-started'), name: text}), commands: upload},
	'file-upserted': {schema: record({type: z.literal('file-upserted'), name: text, contentId}), commands: upload},
	'file-progress': {schema: record({type: z.literal('file-progress'), name: text, contentId, sentBytes: count, totalBytes: count}), commands: upload},
	'file-uploaded': {schema: record({type: z.literal('file-uploaded'), name: text, contentId, bytes: count, durationMs: ms}), commands: upload},
	'file-finalized': {schema: record({type: z.literal('file-finalized'), name: text, contentId}), commands: upload},
	'file-failed': {schema: record({type: z.literal('file-failed'), name: text, contentId: contentId.optional(), message: text, code: text.optional()}), commands: upload},
	retry: {schema: record({type: z.literal('retry'), file: text.optional(), operation: text, attempt: count, retryInMs: ms, reason: text}), commands: upload},
	'upload-complete': {schema: record({type: z.literal('upload-complete'), files: count, failed: count, bytes: count, durationMs: ms, bytesPerSecond: z.number().nonnegative()}), commands: upload},
	'ingestion-started': {schema: record({type: z.literal('ingestion-started'), total: count, timeoutMs: ms}), commands: upload},
	'ingestion-state': {schema: record({type: z.literal('ingestion-state'), contentId, name: text, state: text, final: z.boolean()}), commands: upload},
	'ingestion-round': {schema: record({type: z.literal('ingestion-round'), round: count, finished: count, failed: count, total: count, pending: ids, elapsedMs: ms, timeoutMs: ms}), commands: upload},
	'ingestion-complete': {schema: record({type: z.literal('ingestion-complete'), total: count, finished: count, failed: count, elapsedMs: ms}), commands: upload},
	'message-sent': {schema: record({type: z.literal('message-sent'), messageId: id.optional(), text}), commands: uploadAndChat},
	'reply-progress': {schema: record({type: z.literal('reply-progress'), text, elapsedMs: ms}), commands: uploadAndChat},
	'reply-complete': {schema: record({type: z.literal('reply-complete'), text, elapsedMs: ms}), commands: uploadAndChat},
	history: {schema: record({type: z.literal('history'), messages: z.array(z.strictObject({role: text, text}))}), commands: upload},
	reply: {
		schema: record({type: z.literal('reply'), chatId, contentIds: contentIds.optional(), reply: text, failed: z.array(failure).optional(), unchanged: ids.optional()}),
		commands: uploadAndChat,
	},
	cancelled: {schema: record({type: z.literal('cancelled'), chatId: chatId.optional(), resume: text.optional()}), commands: uploadAndChat},
	listening: {
		schema: record({
			type: z.literal('listening'), at: iso, url: text, webhookUrl: text, healthUrl: text, secrets: count, key: text.nullable(), keySource: text.nullable(),
			previousKey: text.nullable().optional(), previousKeyExpiresAt: iso.nullable().optional(), model: text, concurrency: count, toleranceSeconds: count,
			drainTimeoutMs: ms, backend: z.enum(['journal', 'redis']), dataDir: text.optional(), redis: text.optional(), redisPersistence: text.optional(),
			redisWarning: text.optional(), redisWaitReplicas: count.optional(), retention: text, maxEvents: count, maxBacklog: count, adminUrl: text.optional(),
			platformRate: z.number().optional(), forwardTo: text.optional(), forwardRetries: count.optional(), answerDeadline: text, finalMessageDeadline: text,
		}),
		commands: serve,
	},
	warning: {schema: record({type: z.literal('warning'), at: iso, code: text, message: text}), commands: receiving},
	status: {schema: record({type: z.literal('status'), at: iso, status: text, since: iso, reasons: z.array(text), dependencies: passed, warning: text.optional(), next: text.optional()}), commands: receiving},
	waiting: {schema: record({type: z.literal('waiting'), at: iso, count, nextAttemptAt: iso.optional()}), commands: receiving},
	rejected: {
		schema: record({...receiverBase, type: z.literal('rejected'), request: count, method: text, path: text, remoteAddress: text, status: int, reason: text, error: text, eventId: namedId.optional()}),
		commands: serve,
	},
	accepted: {
		schema: record({
			...receiverBase, type: z.literal('accepted'), request: count, remoteAddress: text, status: z.literal(200), eventId: namedId.optional(), eventType: text,
			handling: z.enum(['logged', 'queued', 'unhandled', 'invalid']), chatId: namedId.optional(), userId: id.optional(), companyId: id.optional(), text: text.optional(),
			missing: z.array(text).optional(), secretIndex: count.optional(), via: z.literal('event-socket').optional(),
		}),
		commands: receiving,
	},
	duplicate: {
		schema: record({...receiverBase, type: z.literal('duplicate'), request: count, remoteAddress: text, status: z.literal(200), eventId: namedId, eventType: text, chatId: namedId.optional(), via: z.literal('event-socket').optional()}),
		commands: receiving,
	},
	stage: {
		schema: record({
			...receiverBase, type: z.literal('stage'), eventId: namedId, chatId: z.string(), stage: text, documents: count.optional(), durationMs: ms.optional(), reason: text.optional(),
			nextAttemptAt: iso.optional(), waitingFor: text.optional(), tries: count.optional(), cleanup: passed.optional(), eventType: text.optional(), forward: passed.optional(),
			finalStatus: text.optional(), storeLost: z.boolean().optional(),
		}),
		commands: receiving,
	},
	draining: {schema: record({...receiverBase, type: z.literal('draining'), jobs: count, timeoutMs: ms}), commands: receiving},
	stopped: {schema: record({...receiverBase, type: z.literal('stopped'), counters: z.record(z.string(), count), cutOff: count, leftWaiting: count}), commands: receiving},
	'socket-listening': {
		schema: record({
			type: z.literal('socket-listening'), at: iso, socketUrl: text, events: z.array(text), key: text.nullable(), keySource: text.nullable(), dataDir: text, retention: text,
			maxEvents: count, concurrency: count, reconnectEvery: text, overlap: text, model: text.optional(), forwardTo: text.optional(), forwardRetries: count.optional(),
			answerDeadline: text, finalMessageDeadline: text,
		}),
		commands: listen,
	},
	'stream-opened': {schema: record({type: z.literal('stream-opened'), at: iso, stream: count, open: count}), commands: listen},
	'stream-closed': {
		schema: record({type: z.literal('stream-closed'), at: iso, stream: count, reason: z.enum(['replaced', 'closed', 'stopped']), openMs: ms, live: z.boolean(), error: text.optional()}),
		commands: listen,
	},
	'stream-refused': {schema: record({type: z.literal('stream-refused'), at: iso, status: int.optional(), error: text, retryInMs: ms}), commands: listen},
	gap: {schema: record({type: z.literal('gap'), at: iso, from: iso, to: iso, ms, downtime: z.boolean()}), commands: listen},
	'frame-skipped': {schema: record({type: z.literal('frame-skipped'), at: iso, stream: count, reason: z.enum(['not-json', 'no-id']), data: text}), commands: listen},
	'socket-closed': {
		schema: record({type: z.literal('socket-closed'), at: iso, streamsOpened: count, gaps: count, uncoveredMs: ms, events: count, copiesDropped: count, skipped: count}),
		commands: listen,
	},
	'socket-stopped': {schema: record({type: z.literal('socket-stopped'), at: iso, reason: z.enum(['unauthorized', 'not-found']), status: int}), commands: listen},
	response: {
		schema: record({type: z.literal('response'), url: text, event: text, eventId, status: int, body: passed, durationMs: ms, note: text.optional()}),
		commands: ['trigger'],
	},
	event: {
		schema: z.looseObject({type: z.literal('event'), ...eventSummary, body: passed.optional(), bodyBase64: text.optional(), headers: passed.optional(), steps: passed.optional(), editedFrom: id.optional()}),
		commands: ['events list', 'events show'],
	},
	exported: {schema: record({type: z.literal('exported'), id: eventId, path: text, bytes: count}), commands: ['events export']},
	replay: {
		schema: record({type: z.literal('replay'), id: eventId, editedFrom: id.optional(), status: text, durationMs: ms.optional(), error: text.optional(), holder: text.optional()}),
		commands: replay,
	},
	'would-replay': {schema: record({type: z.literal('would-replay'), ...eventSummary}), commands: replay},
	summary: {
		schema: record({
			type: z.literal('summary'), total: count.optional(), done: count.optional(), failed: count.optional(), skipped: count.optional(), queued: count.optional(),
			notReplayable: count, dryRun: z.literal(true).optional(), wouldReplay: count.optional(), unknown: ids.optional(),
		}),
		commands: replay,
	},
	recovered: {
		schema: record({
			type: z.literal('recovered'), file: text, journal: text, kept: text, events: count, known: count, ids: count, unreadable: ids, damaged: ids, withoutSteps: ids, failures: z.array(text),
			newMetaPages: z.boolean(), scanned: z.strictObject({events: count, ids: count}),
		}),
		commands: ['events recover'],
	},
	'nothing-to-recover': {schema: record({type: z.literal('nothing-to-recover'), file: text, journal: text, events: count, ids: count}), commands: ['events recover']},
	unreadable: {schema: record({type: z.literal('unreadable'), id, reason: text}), commands: ['events list']},
	key: {
		schema: record({
			type: z.literal('key'), key: text.nullable(), source: text.nullable(), storedKey: text.nullable(), path: text, lastRotatedAt: iso.nullable(), keySetAt: iso.nullable(),
			ageSeconds: count.nullable(), maxAge: text.nullable(), nextRotationDueAt: iso.nullable(), rotationOverdue: z.boolean().nullable(),
			previousKey: z.strictObject({key: text.nullable(), expiresAt: iso, valid: z.boolean(), remainingSeconds: int}).nullable(),
		}),
		commands: ['keys show'],
	},
	rotation: {
		schema: z.discriminatedUnion('rotated', [
			record({type: z.literal('rotation'), rotated: z.literal(false), key: text, source: text, keySetAt: iso.nullable(), ageSeconds: count, olderThan: text}),
			record({
				type: z.literal('rotation'), rotated: z.literal(true), key: text, previousKey: text, expiresAt: iso.nullable(), overlapSeconds: count.nullable(), rotatedAt: iso,
				stored: z.boolean(), path: text, envOverride: z.boolean(), verified: z.boolean(), envFile: text.optional(), envFileWritten: z.boolean().optional(),
			}),
		]),
		commands: ['keys rotate'],
	},
	request: {
		schema: record({type: z.literal('request'), at: iso, requestId: id, method: text, path: text, status: int, durationMs: ms, fault: passed.optional()}),
		commands: local,
	},
	delivery: {
		schema: record({type: z.literal('delivery'), at: iso, eventId: namedId, event: text, url: text, attempt: count, status: int.nullable(), error: text.optional(), state: text}),
		commands: local,
	},
	ingestion: {schema: record({type: z.literal('ingestion'), at: iso, contentId: namedId, key: text, state: text, error: text.optional()}), commands: local},
	'key-rotated': {schema: record({type: z.literal('key-rotated'), at: iso, oldKeyExpiresAt: iso}), commands: local},
	'check-difference': {
		schema: record({type: z.literal('check-difference'), chatId, name: text, status: z.enum(['missing', 'changed', 'only-on-chat']), reason: text, size: count, contentId: contentId.optional()}),
		commands: ['check'],
	},
	check: {
		schema: record({type: z.literal('check'), chatId, folder: text, manifest: text, matched: count, ingesting: count, missing: count, changed: count, onlyOnChat: count, same: z.boolean()}),
		commands: ['check'],
	},
	'synced-chat': {
		schema: record({type: z.literal('synced-chat'), chatId, baseUrl: text, folder: text.nullable(), files: count, lastSync: iso, profile: text, manifest: text}),
		commands: ['chats'],
	},
	'completion-script': {schema: record({type: z.literal('completion-script'), shell: text, script: text}), commands: ['completion']},
	'event-id': {schema: record({type: z.literal('event-id'), id: eventId}), commands: ['completion']},
	'chat-id': {schema: record({type: z.literal('chat-id'), chatId}), commands: ['completion']},
	'profile-name': {schema: record({type: z.literal('profile-name'), name: text}), commands: ['completion']},
} as const satisfies Record<string, {schema: z.ZodType; commands: readonly string[]}>;

export type JsonRecordType = keyof typeof jsonRecords;

/** What the run's writer takes (`deps.output.print`): a record of a declared type (its fields are checked against its schema as it is printed). */
export type JsonRecordLine = {type: JsonRecordType} & Record<string, unknown>;

/** Whether `command` (its words, e.g. `events list`) is one that prints lines of `type`. */
export function printsType(command: string, type: JsonRecordType): boolean {
	const commands: readonly string[] = jsonRecords[type].commands;
	return commands.includes('*') || commands.includes(command);
}
