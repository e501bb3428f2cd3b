import {randomBytes} from 'node:crypto';
import {systemClock, type PlatformClock} from './clock.js';
import {invalidOption, LocalPlatformError} from './errors.js';
import {newApiKey, newId} from './ids.js';
import {assertLoopbackUrl, isLoopbackHost} from './http/loopback.js';
import {defaultEventSocket, type EventSocketOptions} from './chats/event-socket.js';
import {answerModes, type AnswerMode} from './sparse.js';
import {defaultLimits, type LocalPlatformLimits, type LocalPlatformOptions} from './types.js';

/** The options with their defaults filled in and every value checked. */
export type ResolvedOptions = {
	host: string;
	port: number;
	limits: LocalPlatformLimits;
	clock: PlatformClock;
	apiKey: string;
	appId: string;
	userId: string;
	companyId: string;
	endpointSecret: string;
	keyOverlapMs: number;
	ingestionStepMs: number;
	deliveryRetryBaseMs: number;
	deliveryTimeoutMs: number;
	eventSocket: EventSocketOptions;
	llmUrl: URL | undefined;
	answers: AnswerMode;
};

function ms(value: number | undefined, fallback: number, option: string): number {
	const result = value ?? fallback;
	if (!Number.isFinite(result) || result < 0) {
		throw invalidOption(option, result, 'a non-negative number of milliseconds');
	}

	return result;
}

export function resolveOptions(options: LocalPlatformOptions): ResolvedOptions {
	const host = options.host ?? '127.0.0.1';
	if (!isLoopbackHost(host)) {
		throw new LocalPlatformError('local-host-not-loopback', {host}, `host: the local platform only binds loopback addresses (127.0.0.1, ::1, localhost), got ${host}`);
	}

	const port = options.port ?? 0;
	if (!Number.isInteger(port) || port < 0 || port > 65_535) {
		throw new LocalPlatformError('local-port-invalid', {port}, `port must be an integer from 0 to 65535, got ${port}`);
	}

	return {
		host,
		port,
		limits: {...defaultLimits, ...options.limits},
		clock: options.clock ?? systemClock,
		apiKey: options.apiKey ?? newApiKey(),
		appId: options.appId ?? newId('app'),
		userId: options.userId ?? newId('user'),
		companyId: options.companyId ?? newId('company'),
		endpointSecret: options.endpointSecret ?? randomBytes(32).toString('hex'),
		keyOverlapMs: ms(options.keyOverlapMs, 24 * 60 * 60 * 1000, 'keyOverlapMs'),
		ingestionStepMs: ms(options.ingestionStepMs, 150, 'ingestionStepMs'),
		deliveryRetryBaseMs: ms(options.deliveryRetryBaseMs, 1000, 'deliveryRetryBaseMs'),
		deliveryTimeoutMs: ms(options.deliveryTimeoutMs, 10_000, 'deliveryTimeoutMs'),
		eventSocket: {
			maxAgeMs: ms(options.eventSocketMaxAgeMs, defaultEventSocket.maxAgeMs, 'eventSocketMaxAgeMs'),
			goLiveMs: ms(options.eventSocketGoLiveMs, defaultEventSocket.goLiveMs, 'eventSocketGoLiveMs'),
		},
		llmUrl: options.llmUrl === undefined ? undefined : assertLoopbackUrl(options.llmUrl, 'llmUrl'),
		answers: answerMode(options.answers),
	};
}

function answerMode(value: AnswerMode | undefined): AnswerMode {
	const mode = value ?? 'full';
	if (!answerModes.includes(mode)) {
		throw invalidOption('answers', mode, `one of ${answerModes.join(', ')}`);
	}

	return mode;
}
