/**
 * serve's view of the platform: one cheap authenticated call (at start and every 30 s), and every
 * call the answer makes, each classified as the platform answering, refusing the key, or not
 * answering. Also the metered answer port (calls by operation and status class, with durations).
 */
import {errorMessage} from '../../format/value.js';
import type {PlatformClient} from '../../platform/client.js';
import {PlatformApiError, PlatformError} from '../../platform/errors.js';
import type {AnswerPort} from '../answer/answer-port.js';

export type ProbeOutcome =
	| {ok: true}
	| {ok: false; code: 'key-rejected' | 'unavailable' | 'unreachable'; error: string};

/**
 * How a failed call reflects on the platform; undefined when the platform answered (a 404 is an
 * answer). Only 401 means the key is refused: a 403 is the platform refusing one thing to this key
 * (a chat it checks access to), not the key.
 */
export function classifyFailure(error: unknown): ProbeOutcome | undefined {
	if (error instanceof PlatformApiError) {
		if (error.status === 401) {
			return {ok: false, code: 'key-rejected', error: error.message};
		}

		return error.status === 429 || error.status >= 500 ? {ok: false, code: 'unavailable', error: error.message} : undefined;
	}

	// A call cut off by this process (the drain deadline) says nothing about the platform.
	return error instanceof PlatformError ? {ok: false, code: 'unreachable', error: errorMessage(error)} : undefined;
}

/** The status class of a call's end: 2xx, 4xx, 5xx, or `error` (no answer). */
export function statusClass(error: unknown): string {
	return error instanceof PlatformApiError ? `${Math.floor(error.status / 100)}xx` : 'error';
}

/**
 * One probe: GET /openai/models, a cheap authenticated read that names no chat; any answer but
 * 401 (key refused), 429 or 5xx (unavailable) is fine.
 */
export async function probePlatform(client: PlatformClient, timeoutMs = 10_000): Promise<ProbeOutcome> {
	try {
		await client.listModels({timeoutMs, totalTimeoutMs: timeoutMs});
		return {ok: true};
	} catch (error) {
		return error instanceof PlatformError ? classifyFailure(error) ?? {ok: true} : {ok: false, code: 'unreachable', error: errorMessage(error)};
	}
}

export type CallWatcher = {
	/** One platform call ended: its operation, status class and time; and how it reflects on the platform. */
	call(operation: string, statusClass: string, ms: number, outcome: ProbeOutcome): void;
};

/** The answer port with every call timed and classified. */
export function watchedPort(port: AnswerPort, watcher: CallWatcher): AnswerPort {
	const watch = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
		const started = performance.now();
		try {
			const result = await run();
			watcher.call(operation, '2xx', performance.now() - started, {ok: true});
			return result;
		} catch (error) {
			watcher.call(operation, statusClass(error), performance.now() - started, classifyFailure(error) ?? {ok: true});
			throw error;
		}
	};

	return {
		createMessageLog: async (body, call) => watch('createMessageLog', async () => port.createMessageLog(body, call)),
		updateMessageLog: async (id, body, call) => watch('updateMessageLog', async () => port.updateMessageLog(id, body, call)),
		search: async (body, call) => watch('search', async () => port.search(body, call)),
		chatCompletion: async (body, call) => watch('chatCompletion', async () => port.chatCompletion(body, call)),
		modifyMessage: async (id, body, call) => watch('modifyMessage', async () => port.modifyMessage(id, body, call)),
		getMessage: async (id, chatId, call) => watch('getMessage', async () => port.getMessage(id, chatId, call)),
	};
}
