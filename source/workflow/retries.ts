/**
 * Makes the platform client's retries visible as workflow events. The client reports each request
 * through its `onRequest` hook; the workflow runs each file's transfer inside an async context
 * naming the file, so a retry is attributed to the file whose request failed.
 */
import {AsyncLocalStorage} from 'node:async_hooks';
import type {RequestLogEntry} from '../platform/client.js';
import type {UploadEventListener} from './events.js';

type Scope = {file?: string};

export type RetryTracker = {
	/** Pass as (or call from) the client's `onRequest`. */
	onRequest(entry: RequestLogEntry): void;
	/** Where retry events go (the workflow sets it when it starts). */
	listen(emit: UploadEventListener): void;
	/** Runs `task` with its requests attributed to `file`. */
	forFile<T>(file: string, task: () => Promise<T>): Promise<T>;
};

export function createRetryTracker(): RetryTracker {
	const scopes = new AsyncLocalStorage<Scope>();
	const loose: Scope = {};
	let emit: UploadEventListener | undefined;
	return {
		onRequest(entry) {
			if (entry.retryInMs === undefined) {
				return;
			}

			const scope = scopes.getStore() ?? loose;
			emit?.({
				type: 'retry',
				...(scope.file === undefined ? {} : {file: scope.file}),
				operation: `${entry.method} ${entry.method === 'PUT' ? 'blob' : entry.path}`,
				attempt: entry.attempt,
				retryInMs: entry.retryInMs,
				reason: entry.reason ?? 'a failed attempt',
			});
		},
		listen(listener) {
			emit = listener;
		},
		async forFile(file, task) {
			return scopes.run({file}, task);
		},
	};
}
