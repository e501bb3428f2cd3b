/**
 * What the runUpload tests share: one local platform for the describe block that calls
 * uploadPlatform(), set back after each test (no webhook, no latency), what a test opened closed
 * after it, and readers of the requests the platform received.
 */
import {afterAll, afterEach, beforeAll} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import type {LocalPlatform, RequestRecord} from '../../source/local-platform/index.js';
import type {UploadOptions} from '../../source/workflow/run-upload.js';
import {closersAfterEach} from '../support/cleanups.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {makeFolder} from './helpers.js';

export type Body = Record<string, unknown> & {input?: Record<string, unknown>};

export const bodyOf = (record: RequestRecord): Body => (record.body ?? {}) as Body;
export const isUpsert = (record: RequestRecord): boolean => record.method === 'POST' && record.path === '/content/upsert';
export const isPut = (record: RequestRecord): boolean => record.method === 'PUT' && record.path.startsWith('/blob/');
export const isFinalize = (record: RequestRecord): boolean => isUpsert(record) && bodyOf(record).fileUrl !== undefined;

/** The sentence the CLI prints for an error (the wording lives in source/cli/messages/workflow.ts). */
export function said(error: unknown): string {
	return joinText(describeError(error));
}

/** The platform of the tests running now: started before them by the hooks uploadPlatform registers. */
export let platform: LocalPlatform;

/**
 * Registers the platform's hooks in the describe block it is called in, and returns what its tests
 * use: `cleanups` (closed after each test, newest first), a `folder` of files, the `options` of a
 * run against the platform (or a proxy's `baseUrl`), and the requests received `since` an index.
 */
export function uploadPlatform() {
	const cleanups = closersAfterEach();

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	// Registered after closersAfterEach, so it runs before the cleanups (after-hooks run last first).
	afterEach(() => {
		platform.setWebhookUrl();
		platform.setFaults({latencyMs: 0});
	});

	afterAll(async () => {
		await platform.close();
	});

	function folder(files: Record<string, string | Buffer>): string {
		const made = makeFolder(files);
		cleanups.push(() => {
			made.cleanup();
			return Promise.resolve();
		});
		return made.dir;
	}

	function options(extra: Partial<UploadOptions> & {folder: string}, baseUrl?: string): UploadOptions {
		const client = clientFor(platform, baseUrl === undefined ? {} : {baseUrl});
		cleanups.push(async () => client.close());
		return {client, assistantId: platform.assistantId, prompt: 'How long is the warranty?', pollIntervalMs: 10, ...extra};
	}

	/** Requests the platform received since `from` (an index into its request log). */
	const since = (from: number): RequestRecord[] => platform.requests.slice(from);

	return {cleanups, folder, options, since};
}
