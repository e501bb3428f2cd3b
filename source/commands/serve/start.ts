/** Starting serve's parts: the event store it opens and the receiver's options (serve.ts runs them). */
import path from 'node:path';
import {UserError} from '../../errors.js';
import {maskUrl} from '../../format/secret.js';
import type {PlatformClient} from '../../platform/client.js';
import type {EventBackend} from '../../receiver/store/backend.js';
import {openBackend} from '../../receiver/store/open-backend.js';
import type {ReceiverOptions} from '../../receiver/server.js';
import type {createService} from '../../receiver/service.js';
import {volatileRefusal} from '../../cli/messages/redis.js';
import {sharedFolderWarning} from '../../cli/messages/privacy.js';
import {configFilePath} from '../../config/file.js';
import {privateFolders} from '../../private-folder.js';
import type {ReceivingOptions} from './flags.js';

/** Platform calls one answer makes (logs, search, completion, message): BullMQ's job limiter is set from it. */
const callsPerAnswer = 7;

/** A start-up warning: its code (the `warning` record's) and its sentence. */
export type StartWarning = {code: string; message: string};

/**
 * The data folder (unless events go to Redis) and the config folder: another user's is refused, a
 * data folder others can write too unless --allow-shared-data-dir; one warning per folder others can reach.
 */
export function checkFolders(options: ReceivingOptions, directory: string, env: NodeJS.ProcessEnv): StartWarning[] {
	const folders = [...(options.redisUrl ? [] : [{folder: directory, role: 'data' as const}]), {folder: path.dirname(configFilePath(env)), role: 'config' as const}];
	return privateFolders(folders, {allowSharedData: options.allowSharedDataDir === true}).map(shared => ({code: `${shared.role}-dir-shared`, message: sharedFolderWarning(shared)}));
}

/** Where serve keeps events: the journal, or Redis with its durability checked (a volatile one refused unless allowed). */
export async function openServeStore(options: ReceivingOptions, directory: string, owner = 'serve'): Promise<EventBackend> {
	const rate = options.platformRate;
	const backend: EventBackend = await openBackend({
		...(options.redisUrl ? {redisUrl: options.redisUrl} : {}),
		directory,
		owner,
		maxAgeMs: options.retentionMs,
		maxEntries: options.maxEvents,
		...(options.redisUrl ? {checkDurability: true, allowVolatile: options.allowVolatileRedis === true, waitReplicas: options.redisWaitReplicas ?? 0, ...(options.redisWaitTimeoutMs === undefined ? {} : {waitTimeoutMs: options.redisWaitTimeoutMs})} : {}),
		...(options.redisUrl && rate !== undefined ? {limiter: {max: Math.max(1, Math.round(rate)), durationMs: Math.round(callsPerAnswer * 1000 * Math.max(1, Math.round(rate)) / rate)}} : {}),
	});
	if (options.redisUrl && backend.durability?.state === 'volatile' && !options.allowVolatileRedis) {
		const refusal = volatileRefusal(backend.durability, maskUrl(options.redisUrl));
		await backend.close();
		throw new UserError('redis-volatile', refusal);
	}

	return backend;
}

/** The receiver's options from serve's: answers (or forwards), limits, retries and the service's watchers. */
export function receiverOptions(options: ReceivingOptions, parts: {client: PlatformClient; secrets: string[]; backend: EventBackend; model: string; service: ReturnType<typeof createService>}): ReceiverOptions {
	const {client, secrets, backend, model, service} = parts;
	return {
		client,
		secrets,
		backend,
		toleranceSeconds: options.toleranceSeconds,
		concurrency: options.concurrency,
		model,
		drainTimeoutMs: options.drainTimeoutMs,
		replayWindowMs: options.retentionMs,
		maxBacklog: options.maxBacklog,
		observer: service.observer,
		callWatcher: service.callWatcher,
		retry: {answerDeadlineMs: options.answerDeadlineMs, finalDeadlineMs: options.finalMessageDeadlineMs, ...(options.retryBackoffMs === undefined ? {} : {baseMs: options.retryBackoffMs})},
		...(options.forwardTo ? {forward: {url: options.forwardTo, secret: secrets[0] ?? '', retries: options.forwardRetries, ...(options.forwardBackoffMs === undefined ? {} : {baseMs: options.forwardBackoffMs})}} : {}),
	};
}
