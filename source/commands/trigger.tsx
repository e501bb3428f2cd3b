import {request} from 'undici';
import {UserError} from '../errors.js';
import {errorCode} from '../platform/errors.js';
import {buildTestEvent, parseTestEventKind, signDelivery} from '../receiver/test-event.js';
import {settingsFor, writeJson} from './shared.js';
import type {CommandContext, CommandModule} from './legacy-types.js';

const defaultUrl = 'http://127.0.0.1:8080/webhook';
const kinds = 'user-message or external-module-chosen';

function stringFlag(context: CommandContext, name: string): string | undefined {
	const value = context.flags[name];
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function targetUrl(value: string): URL {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new UserError(`--url must be an http(s) address such as ${defaultUrl}; got "${value}"`);
	}

	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new UserError(`--url must start with http:// or https://; got "${value}"`);
	}

	return url;
}

/** A hint for a non-2xx answer of a receiver. */
function hintFor(status: number, body: string): string {
	if (status === 400 && /signature/i.test(body)) {
		return ' Check that the secret (--secret, or the configured endpoint secret) is the one the receiver verifies with.';
	}

	if (status === 404 || status === 405) {
		return ' Check --url: the receiver takes events at POST /webhook.';
	}

	if (status >= 500) {
		return ' The receiver is failing or busy; the platform would retry this delivery.';
	}

	return '';
}

const command: CommandModule = {
	usage: `platform-tui trigger <user-message|external-module-chosen> [--url URL] [--text TEXT] [--chat-id ID] [--secret S] [--repeat-id ID] [--message-id ID]`,
	description: 'Send a correctly signed test event to a webhook receiver and print its answer',
	flags: {
		url: {type: 'string', default: defaultUrl, description: 'Receiver address', placeholder: 'URL'},
		text: {type: 'string', description: 'User text of the event', placeholder: 'TEXT'},
		chatId: {type: 'string', description: 'Chat id of the event (default: a fresh one)', placeholder: 'ID'},
		secret: {type: 'string', description: 'Endpoint secret to sign with (default: the configured one, first of a comma list)', placeholder: 'S'},
		repeatId: {type: 'string', description: 'Send with this event id again, as a platform redelivery does', placeholder: 'ID'},
		messageId: {type: 'string', description: 'external-module-chosen: the assistant message to answer (default: a fresh id)', placeholder: 'ID'},
		timeout: {type: 'number', default: 10, description: 'Seconds to wait for the answer', placeholder: 'SECONDS'},
	},
	examples: [
		'platform-tui trigger user-message --text "Hello"',
		'platform-tui trigger external-module-chosen --chat-id chat_123 --message-id msg_456 --text "What is in the report?"',
		'platform-tui trigger user-message --repeat-id evt_0123456789abcdef01234567',
	],
	async run(context) {
		const [kindName, ...extra] = context.argv;
		if (!kindName || extra.length > 0) {
			throw new UserError(`Usage: platform-tui trigger <user-message|external-module-chosen> [--url URL] [--text TEXT] [--chat-id ID] [--secret S] [--repeat-id ID]`);
		}

		const kind = parseTestEventKind(kindName);
		if (!kind) {
			throw new UserError(`Unknown event "${kindName}"; trigger sends ${kinds}`);
		}

		const url = targetUrl(stringFlag(context, 'url') ?? defaultUrl);
		const {settings} = settingsFor(context, [], 'trigger');
		const secret = stringFlag(context, 'secret') ?? settings.endpointSecret?.split(',').map(part => part.trim()).find(part => part !== '');
		if (!secret) {
			throw new UserError('trigger needs the endpoint secret to sign with: pass --secret, set PLATFORM_ENDPOINT_SECRET, or run `platform-tui config set endpointSecret --stdin`');
		}

		const timeoutSeconds = typeof context.flags.timeout === 'number' ? context.flags.timeout : 10;
		if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
			throw new UserError(`--timeout must be a positive number of seconds; got ${timeoutSeconds}`);
		}

		const repeatId = stringFlag(context, 'repeatId');
		const text = typeof context.flags.text === 'string' ? context.flags.text : undefined;
		const event = buildTestEvent(kind, {
			...(repeatId ? {id: repeatId} : {}),
			...(text === undefined ? {} : {text}),
			...(stringFlag(context, 'chatId') ? {chatId: stringFlag(context, 'chatId')} : {}),
			...(stringFlag(context, 'messageId') ? {assistantMessageId: stringFlag(context, 'messageId')} : {}),
			...(settings.userId ? {userId: settings.userId} : {}),
			...(settings.companyId ? {companyId: settings.companyId} : {}),
			...(settings.assistantId ? {assistantId: settings.assistantId} : {}),
		});
		// Signed at send time, as the platform does on every attempt.
		const delivery = signDelivery(event, secret);
		const started = performance.now();
		const timeoutMs = Math.round(timeoutSeconds * 1000);
		// A plain timer rather than AbortSignal.timeout: the answer must come within the time given.
		const controller = new AbortController();
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			controller.abort();
		}, timeoutMs);
		const onCancel = () => {
			controller.abort(context.signal.reason);
		};

		context.signal.addEventListener('abort', onCancel, {once: true});
		let status: number;
		let body: string;
		try {
			const response = await request(url, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body,
				signal: controller.signal,
				headersTimeout: timeoutMs,
				bodyTimeout: timeoutMs,
			});
			status = response.statusCode;
			body = await response.body.text();
		} catch (error) {
			if (context.signal.aborted) {
				throw error;
			}

			const code = errorCode(error);
			if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
				throw new UserError(`${url.href} did not answer within ${timeoutSeconds} s; a receiver must acknowledge at once (raise --timeout to wait longer)`);
			}

			throw new UserError(`Could not reach ${url.href}${code ? ` (${code})` : ''}; is \`platform-tui serve\` running there? (--url sets the address)`);
		} finally {
			clearTimeout(timer);
			context.signal.removeEventListener('abort', onCancel);
		}

		const durationMs = Math.round(performance.now() - started);
		const ok = status >= 200 && status < 300;
		if (context.json) {
			let parsed: unknown = body;
			try {
				parsed = JSON.parse(body) as unknown;
			} catch {
				// Keep the raw text.
			}

			writeJson(context, {type: 'response', url: url.href, event: event.event, eventId: event.id, status, body: parsed, durationMs});
		} else {
			context.stdout.write(`Sent ${event.event} ${event.id} to ${url.href}\n${status} ${body.trim()}\n`);
		}

		if (!ok) {
			context.stderr.write(`The receiver answered ${status}.${hintFor(status, body)}\n`);
			return 1;
		}

		return 0;
	},
};

export default command;
