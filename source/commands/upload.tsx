import {defaultModel} from '../config/settings.js';
import {CancelledError, isAbortError, UserError} from '../errors.js';
import {PlatformClient} from '../platform/client.js';
import {createPlainFilter, plainLine} from '../ui/upload/plain.js';
import type {UploadEvent} from '../workflow/events.js';
import {
	defaultConcurrency,
	defaultPollIntervalMs,
	defaultReplyTimeoutMs,
	defaultTitle,
	runUpload,
	type UploadClient,
} from '../workflow/run-upload.js';
import {createClient, formatRequestLog, settingsFor, writeJson} from './shared.js';
import type {CommandContext, CommandModule} from './legacy-types.js';

export const usageLine = 'Usage: platform-tui upload <folder_path> <instruction_prompt>';

type Numbers = {concurrency: number; pollIntervalMs: number; ingestionTimeoutMs?: number; replyTimeoutMs: number};

function positiveSeconds(context: CommandContext, flag: string, name: string): number | undefined {
	const value = context.flags[flag];
	if (value === undefined) {
		return undefined;
	}

	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
		throw new UserError(`--${name} takes a number of seconds greater than 0; got ${String(value)}`);
	}

	return Math.round(value * 1000);
}

function readNumbers(context: CommandContext): Numbers {
	const concurrency = context.flags.concurrency ?? defaultConcurrency;
	if (typeof concurrency !== 'number' || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
		throw new UserError(`--concurrency takes a whole number from 1 to 64; got ${String(concurrency)}`);
	}

	const numbers: Numbers = {
		concurrency,
		pollIntervalMs: positiveSeconds(context, 'pollInterval', 'poll-interval') ?? defaultPollIntervalMs,
		replyTimeoutMs: positiveSeconds(context, 'replyTimeout', 'reply-timeout') ?? defaultReplyTimeoutMs,
	};
	const ingestion = positiveSeconds(context, 'ingestionTimeout', 'ingestion-timeout');
	if (ingestion !== undefined) {
		numbers.ingestionTimeoutMs = ingestion;
	}

	return numbers;
}

type Target = {
	client: PlatformClient;
	assistantId: string;
	/** Announced before the run (the --local addresses). */
	note?: {baseUrl: string; receiverUrl?: string};
	close(): Promise<void>;
};

function debugLogger(context: CommandContext): ((entry: Parameters<typeof formatRequestLog>[0]) => void) | undefined {
	return context.debug ? entry => {
		context.stderr.write(`${formatRequestLog(entry)}\n`);
	} : undefined;
}

/** The configured platform: needs every setting the workflow uses. */
function configuredTarget(context: CommandContext): Target {
	const {settings, store} = settingsFor(context, ['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId'], 'platform-tui upload');
	const client = createClient(context, settings, store);
	return {
		client,
		assistantId: settings.assistantId,
		async close() {
			await client.close();
		},
	};
}

/**
 * --local: the local platform in-process, with the embedded webhook receiver registered as the
 * space's external module, so the answer arrives through the webhook path. No configuration.
 */
async function localTarget(context: CommandContext): Promise<Target> {
	const {startLocalPlatform} = await import('../local-platform/index.js');
	const local = await startLocalPlatform({host: '127.0.0.1', port: 0});
	const settings = local.settings();
	const onRequest = debugLogger(context);
	const clientOptions = {
		baseUrl: settings.baseUrl,
		// The local platform's own key, never PLATFORM_API_KEY or the stored one.
		apiKey: () => local.apiKey,
		appId: settings.appId,
		userId: settings.userId,
		companyId: settings.companyId,
		...(onRequest ? {onRequest} : {}),
	};
	const client = new PlatformClient(clientOptions);
	const receiverClient = new PlatformClient({...clientOptions, onRequest: undefined});
	let receiver: {close(drainTimeoutMs?: number): Promise<unknown>} | undefined;
	let receiverUrl: string | undefined;
	try {
		const {createReceiver} = await import('../receiver/index.js');
		const model = typeof context.flags.model === 'string' && context.flags.model.trim() !== '' ? context.flags.model.trim() : defaultModel;
		const created = createReceiver({client: receiverClient, secrets: [settings.endpointSecret], model, drainTimeoutMs: 2000});
		receiver = created;
		const listening = await created.listen({host: '127.0.0.1', port: 0});
		receiverUrl = `${listening.url}/webhook`;
		local.setWebhookUrl(receiverUrl);
	} catch (error) {
		await receiver?.close(0).catch(() => undefined);
		await Promise.allSettled([client.close(), receiverClient.close()]);
		await local.close();
		throw error;
	}

	return {
		client,
		assistantId: settings.assistantId,
		note: {baseUrl: settings.baseUrl, receiverUrl},
		async close() {
			await receiver?.close(2000).catch(() => undefined);
			await Promise.allSettled([client.close(), receiverClient.close()]);
			await local.close();
		},
	};
}

const conflictsWithLocal = ['baseUrl', 'appId', 'userId', 'companyId', 'assistantId'] as const;

const command: CommandModule = {
	usage: 'platform-tui upload <folder_path> <instruction_prompt> [options]',
	description: 'Create a space chat, upload every file of a folder into it, wait for ingestion, ask the prompt and print the reply and the chat history',
	flags: {
		title: {type: 'string', default: defaultTitle, description: 'Title of the new chat', placeholder: 'TEXT'},
		concurrency: {type: 'number', default: defaultConcurrency, description: 'Files transferred at the same time; 1 uploads one after another'},
		pollInterval: {type: 'number', default: defaultPollIntervalMs / 1000, description: 'Seconds between ingestion checks and reply polls', placeholder: 'SECONDS'},
		ingestionTimeout: {type: 'number', description: 'Seconds to wait for ingestion (default min(60 + 20 × (files − 1), 120))', placeholder: 'SECONDS'},
		replyTimeout: {type: 'number', default: defaultReplyTimeoutMs / 1000, description: 'Seconds to wait for the assistant\'s reply', placeholder: 'SECONDS'},
		local: {type: 'boolean', default: false, description: 'Run against a local platform started in-process (no configuration needed)'},
	},
	examples: [
		'platform-tui upload ./docs "Summarise these documents"',
		'platform-tui upload --local test/fixtures/sample-docs "How long is the warranty?"',
		'platform-tui upload ./reports "List the open risks" --concurrency 1 --json',
	],
	async run(context) {
		if (context.argv.length < 2) {
			context.stderr.write(`${usageLine}\n`);
			return 1;
		}

		if (context.argv.length > 2) {
			context.stderr.write(`${usageLine}\n(got ${context.argv.length} arguments; quote the prompt if it has spaces)\n`);
			return 1;
		}

		const [folder = '', prompt = ''] = context.argv;
		if (prompt.trim() === '') {
			throw new UserError('The instruction prompt is empty; pass the question to ask about the uploaded files');
		}

		const numbers = readNumbers(context);
		const title = typeof context.flags.title === 'string' && context.flags.title.trim() !== '' ? context.flags.title : defaultTitle;
		const local = context.flags.local === true;
		if (local) {
			const given = conflictsWithLocal.filter(name => typeof context.flags[name] === 'string');
			if (given.length > 0) {
				throw new UserError(`--local runs against its own local platform and cannot be combined with ${given.map(name => `--${name.replace(/[A-Z]/g, letter => `-${letter.toLowerCase()}`)}`).join(', ')}`);
			}
		}

		const target = local ? await localTarget(context) : configuredTarget(context);
		const cancel = new AbortController();
		const signal = AbortSignal.any([context.signal, cancel.signal]);
		const options = {
			client: target.client as UploadClient,
			folder,
			prompt,
			assistantId: target.assistantId,
			title,
			signal,
			...numbers,
		};
		const cancelledCode = (): number => (context.signal.aborted && context.signal.reason === 'SIGTERM' ? 143 : 130);
		try {
			if (context.interactive) {
				// Ink loads only for the live screen, so usage errors and plain runs start fast.
				const {runInteractive} = await import('../ui/upload/interactive.js');
				return await runInteractive(context, options, cancel, target.note ? localBanner(target.note) : undefined);
			}

			return await runPlain(context, options, target.note, cancelledCode);
		} finally {
			await target.close();
		}
	},
};

type RunOptions = Parameters<typeof runUpload>[0];

function localBanner(note: NonNullable<Target['note']>): string {
	return `Local platform: ${note.baseUrl}${note.receiverUrl ? `, answers through the webhook receiver at ${note.receiverUrl}` : ''}`;
}

async function runPlain(context: CommandContext, options: RunOptions, note: Target['note'], cancelledCode: () => number): Promise<number> {
	const keep = createPlainFilter();
	if (note) {
		if (context.json) {
			writeJson(context, {type: 'local-platform', baseUrl: note.baseUrl, ...(note.receiverUrl ? {receiverUrl: note.receiverUrl} : {})});
		} else {
			context.stdout.write(`${localBanner(note)}\n`);
		}
	}

	const onEvent = (event: UploadEvent): void => {
		if (context.json) {
			writeJson(context, event);
			return;
		}

		if (keep(event)) {
			const line = plainLine(event);
			if (line !== undefined) {
				context.stdout.write(`${line}\n`);
			}
		}
	};

	try {
		await runUpload(options, onEvent);
		return 0;
	} catch (error) {
		if (error instanceof CancelledError || isAbortError(error)) {
			if (context.json) {
				writeJson(context, {type: 'cancelled'});
			}

			context.stderr.write('Cancelled; in-flight requests were aborted.\n');
			return cancelledCode();
		}

		throw error;
	}
}

export default command;
