import {resolve} from 'node:path';
import {request} from 'undici';
import type {SettingName} from '../../config/settings.js';
import {eventTypes} from '../../platform/types.js';
import {UserError} from '../../errors.js';
import {formatSeconds} from '../../format/duration.js';
import {errorCode} from '../../format/value.js';
import {buildTestEvent, parseTestEventKind, signDelivery, type TestEventKind} from '../../receiver/intake/test-event.js';
import {firstSecret, readSecretFile, refuseSecretOnCommandLine, retiredSecretFlag, secretFileFlag, secretFilePath} from '../secret-input.js';
import {parseStore, storeFlags} from '../events/store-flags.js';
import {fixtureDelivery, parseSets, type FieldSet, type FixtureSource} from './fixture.js';
import {readFlags} from '../../cli/flag-values.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {kebab} from '../../cli/kebab.js';
import {UsageError} from '../../cli/validators.js';

const defaultUrl = 'http://127.0.0.1:8080/webhook';
const kinds = 'user-message or external-module-chosen';
const usage = 'platform-tui trigger <user-message|external-module-chosen> [--url URL] [--text TEXT] [--chat-id ID] [--message-id ID] [--secret-file PATH] [--repeat-id ID]   |   platform-tui trigger (--body FILE | --from-event ID) [--set path=value]... [--keep-id] [--url URL] [--secret-file PATH]';

export type TriggerOptions = {
	/** A test event built from flags; absent when the body comes from a fixture. */
	kind?: TestEventKind;
	/** --body FILE or --from-event ID: the body to send instead. */
	fixture?: FixtureSource;
	/** --keep-id: send the fixture with its own id and createdAt. */
	keepId: boolean;
	/** --set path=value, in order. */
	sets: FieldSet[];
	url: URL;
	text?: string;
	chatId?: string;
	messageId?: string;
	secretFile?: string;
	repeatId?: string;
	timeoutMs: number;
};

/** A hint for a non-2xx answer of a receiver. */
function hintFor(status: number, body: string): string {
	if (status === 400 && /signature/i.test(body)) {
		return ' Check that the secret (--secret-file, or the configured endpoint secret) is the one the receiver verifies with.';
	}

	if (status === 404 || status === 405) {
		return ' Check --url: the receiver takes events at POST /webhook.';
	}

	if (status >= 500) {
		return ' The receiver is failing or busy; the platform would retry this delivery.';
	}

	return '';
}

/**
 * What a 200 to a chosen event means: the answer runs after it, and lands only in a real chat on a
 * real assistant message (without both ids the receiver's writes fail and it logs the failure).
 */
export function chosenNote(options: Pick<TriggerOptions, 'chatId' | 'messageId'>): string {
	const missing = [options.chatId ? undefined : '--chat-id', options.messageId ? undefined : '--message-id'].filter(Boolean).join(' and ');
	const after = 'The 200 only acknowledges the event: the receiver answers it afterwards (see its log).';
	return missing
		? `${after} Made-up ids were sent, so the answer cannot land; pass ${missing} with the ids of a real chat and its assistant message to see it written.`
		: after;
}

/** The event built from the flags, signed now. */
function builtDelivery(options: TriggerOptions, settings: Partial<Record<SettingName, string>>, secret: string): {body: string; headers: Record<string, string>; event: string; id: string} {
	const event = buildTestEvent(options.kind ?? 'user-message', {
		...(options.repeatId ? {id: options.repeatId} : {}),
		...(options.text === undefined ? {} : {text: options.text}),
		...(options.chatId ? {chatId: options.chatId} : {}),
		...(options.messageId ? {assistantMessageId: options.messageId} : {}),
		...(settings.userId ? {userId: settings.userId} : {}),
		...(settings.companyId ? {companyId: settings.companyId} : {}),
		...(settings.assistantId ? {assistantId: settings.assistantId} : {}),
	});
	// Signed at send time, as the platform does on every attempt.
	return {...signDelivery(event, secret), event: event.event, id: event.id};
}

/** Each flag once, with its default and range. */
const triggerFlags = {
	url: {type: 'string', default: defaultUrl, range: {kind: 'url', protocols: ['http:', 'https:']}, description: 'Receiver address', placeholder: 'URL'},
	text: {type: 'string', range: {kind: 'text'}, description: 'User text of the event', placeholder: 'TEXT'},
	chatId: {type: 'string', description: 'Chat id of the event (default: a fresh one)', placeholder: 'ID'},
	messageId: {type: 'string', description: 'external-module-chosen: the assistant message to answer (default: a fresh id)', placeholder: 'ID'},
	...secretFileFlag,
	secret: retiredSecretFlag,
	repeatId: {type: 'string', description: 'Send with this event id again, as a platform redelivery does', placeholder: 'ID'},
	timeout: {type: 'number', default: 10, range: {kind: 'seconds', max: 3600}, description: 'Seconds to wait for the answer', placeholder: 'SECONDS'},
	body: {type: 'string', description: 'Send this JSON file as the body (a fixture; the kind is its "event")', placeholder: 'FILE'},
	fromEvent: {type: 'string', complete: 'event-id', description: 'Send a stored event\'s body again (see `events list`)', placeholder: 'ID'},
	set: {type: 'string', isMultiple: true, description: 'Change a field of the body first: a dotted path and a JSON value', placeholder: 'PATH=JSON'},
	keepId: {type: 'boolean', default: false, description: 'Keep the body\'s own id and createdAt (default: fresh ones, so a receiver takes it as a new event)'},
	dataDir: {...storeFlags.dataDir, description: 'With --from-event: where the event journal lives'},
	redis: {...storeFlags.redis, description: 'With --from-event: read the event from Redis'},
} satisfies Record<string, FlagSpec>;

const command: Command<TriggerOptions> = {
	usage,
	description: 'Send a correctly signed test event to a webhook receiver and print its answer: one built from flags, a JSON body from a file (--body), or a stored event again (--from-event), with a fresh id and createdAt unless --keep-id and fields changed by --set. Every body is first checked as serve checks it; one serve would refuse is reported and not sent.',
	flags: triggerFlags,
	examples: [
		'platform-tui trigger user-message --text "Hello"',
		'platform-tui trigger external-module-chosen --chat-id chat_123 --message-id msg_456 --text "What is in the report?"',
		'platform-tui trigger user-message --repeat-id evt_0123456789abcdef01234567',
		'platform-tui trigger --body fixture.json --set payload.userMessage.text=\'"What does it cost?"\'',
		'platform-tui trigger --from-event evt_0123456789abcdef01234567 --keep-id',
	],
	parse({argv, flags, env}) {
		refuseSecretOnCommandLine(flags, 'secret');
		const values = readFlags(triggerFlags, {flags, env});
		const {body: bodyFile, fromEvent, keepId} = values;
		const sets = parseSets(flags.set);
		const secretFile = secretFilePath(flags);
		const common = {
			url: new URL(values.url),
			timeoutMs: values.timeout,
			keepId,
			sets,
			...(secretFile === undefined ? {} : {secretFile}),
		};
		if (bodyFile || fromEvent) {
			if (bodyFile && fromEvent) {
				throw new UsageError('flags-conflict', 'Give --body or --from-event, not both.');
			}

			if (argv.length > 0) {
				throw new UsageError('too-many-arguments', `With ${bodyFile ? '--body' : '--from-event'} the event kind is the body's own "event"; leave out "${argv.join(' ')}".`);
			}

			const built = ['text', 'chatId', 'messageId', 'repeatId'].filter(name => flags[name] !== undefined);
			if (built.length > 0) {
				throw new UsageError('flags-conflict', `--${built.map(name => kebab(name)).join(', --')} build an event of their own; change a fixture's fields with --set instead (e.g. --set payload.userMessage.text='"Hello"').`);
			}

			const fixture: FixtureSource = bodyFile ? {kind: 'file', path: resolve(bodyFile)} : {kind: 'event', id: fromEvent ?? '', store: parseStore(flags, env)};
			return {...common, fixture};
		}

		if (sets.length > 0 || keepId) {
			throw new UsageError('flags-conflict', '--set and --keep-id change a fixture; give it with --body FILE or --from-event ID.');
		}

		const [kindName, ...extra] = argv;
		if (!kindName || extra.length > 0) {
			throw new UsageError('argument-missing', `Usage: ${usage}`);
		}

		const kind = parseTestEventKind(kindName);
		if (!kind) {
			throw new UsageError('event-kind-unknown', `Unknown event "${kindName}"; trigger sends ${kinds}, or a fixture with --body FILE`);
		}

		const optional = {text: values.text, chatId: values.chatId, messageId: values.messageId, repeatId: values.repeatId};
		return {
			...common,
			kind,
			...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
		};
	},
	async run(options, deps) {
		const {context} = deps;
		const settings = deps.settings([], 'trigger');
		const secret = options.secretFile === undefined ? firstSecret(settings.endpointSecret) : await readSecretFile(options.secretFile, context);
		if (!secret) {
			throw new UserError('secret-missing', 'trigger needs the endpoint secret to sign with: set PLATFORM_ENDPOINT_SECRET, pass --secret-file PATH (- reads standard input), or run `platform-tui config set endpointSecret --stdin`');
		}

		const delivery = options.fixture
			? await fixtureDelivery({source: options.fixture, keepId: options.keepId, sets: options.sets, secret, now: new Date(deps.clock.now()), env: context.env})
			: builtDelivery(options, settings, secret);
		const started = performance.now();
		const {timeoutMs, url} = options;
		// A plain timer rather than AbortSignal.timeout: the answer must come within the time given.
		const controller = new AbortController();
		const timeout = {passed: false};
		const timer = setTimeout(() => {
			timeout.passed = true;
			controller.abort();
		}, timeoutMs);
		const onCancel = () => {
			controller.abort(context.signal.reason);
		};

		context.signal.addEventListener('abort', onCancel, {once: true});
		// A function, so the check reads the signal as it is after the request, not as narrowed before it.
		const cancelled = (): boolean => context.signal.aborted;
		let status: number;
		let body: string;
		try {
			const response = await request(url, {method: 'POST', headers: delivery.headers, body: delivery.body, signal: controller.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs});
			status = response.statusCode;
			body = await response.body.text();
		} catch (error) {
			if (cancelled()) {
				throw error;
			}

			const code = errorCode(error);
			if (timeout.passed || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
				throw new UserError('receiver-no-answer', `${url.href} did not answer within ${formatSeconds(timeoutMs)}; a receiver must acknowledge at once (raise --timeout to wait longer)`);
			}

			throw new UserError('receiver-unreachable', `Could not reach ${url.href}${code ? ` (${code})` : ''}; is \`platform-tui serve\` running there? (--url sets the address)`);
		} finally {
			clearTimeout(timer);
			context.signal.removeEventListener('abort', onCancel);
		}

		const durationMs = Math.round(performance.now() - started);
		const ok = status >= 200 && status < 300;
		const note = ok && delivery.event === eventTypes.externalModuleChosen ? chosenNote(options.fixture ? {chatId: 'given', messageId: 'given'} : options) : undefined;
		if (deps.output.json) {
			let parsed: unknown = body;
			try {
				parsed = JSON.parse(body) as unknown;
			} catch {
				// Keep the raw text.
			}

			deps.output.print({type: 'response', url: url.href, event: delivery.event, eventId: delivery.id, status, body: parsed, durationMs, ...(note ? {note} : {})});
		} else {
			// The receiver's answer is the result (stdout); what was sent and the note are diagnostics.
			context.stderr.write(`Sent ${delivery.event} ${delivery.id} to ${url.href}\n`);
			context.stdout.write(`${status} ${body.trim()}\n`);
			if (note) {
				context.stderr.write(`${note}\n`);
			}
		}

		if (!ok) {
			context.stderr.write(`The receiver answered ${status}.${hintFor(status, body)}\n`);
			return 1;
		}

		return 0;
	},
};

export default command;
