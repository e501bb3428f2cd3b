/**
 * Test events from fixtures: a stored or hand-written webhook body, given a fresh identity, with
 * fields changed by dotted paths, and checked by the same intake `serve` applies before it is sent.
 * Pure apart from the random id; no CLI wording (errors carry a code and data).
 */
import {CoreError} from '../../core-error.js';
import {isRecord} from '../../format/value.js';
import {prepareWebhookSecrets} from '../../platform/webhook-signature.js';
import {intakeBody, checkHeaders, type IntakeConfig} from './intake.js';
import {randomId, signBody} from './test-event.js';

export type FixtureErrorCode = 'fixture-not-json' | 'fixture-not-an-object' | 'fixture-path-invalid' | 'fixture-refused';

export type FixtureErrorData = {
	/** Where the body came from: a file path, or `event <id>`. */
	source: string;
	/** JSON error, the path that could not be set and why, or the intake's reason. */
	detail?: string;
	path?: string;
	/** fixture-refused: the status and error body serve would answer, or the fields a chosen event lacks. */
	status?: number;
	error?: string;
	missing?: string[];
};

export class FixtureError extends CoreError<FixtureErrorCode, FixtureErrorData> {}

/** Reads a body as a JSON object (a leading BOM skipped). */
export function parseFixture(text: string, source: string): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text) as unknown;
	} catch (error) {
		const detail = error instanceof Error ? error.message : String(error);
		throw new FixtureError('fixture-not-json', {source, detail}, `${source} is not valid JSON: ${detail}`);
	}

	if (!isRecord(value)) {
		throw new FixtureError('fixture-not-an-object', {source}, `${source} is not a JSON object`);
	}

	return value;
}

/**
 * A new event id and `createdAt` (now), so a receiver takes the event as a new one. `createdAt`
 * keeps its form: a number stays a number of seconds, an ISO 8601 text stays ISO 8601, anything
 * else becomes unix seconds as text (what the platform sends).
 */
export function freshIdentity(body: Record<string, unknown>, now: Date): void {
	body.id = randomId('evt');
	const seconds = Math.floor(now.getTime() / 1000);
	const created = body.createdAt;
	if (typeof created === 'number') {
		body.createdAt = seconds;
	} else if (typeof created === 'string' && /^\d{4}-\d\d-\d\dT/.test(created)) {
		body.createdAt = now.toISOString();
	} else {
		body.createdAt = String(seconds);
	}
}

function isIndex(segment: string): boolean {
	return /^(0|[1-9]\d*)$/.test(segment);
}

/**
 * Sets `value` at a dotted path (`payload.userMessage.text`; a number segment indexes an array).
 * Missing objects on the way are made; a path through text, a number or null is refused.
 */
export function setPath(body: Record<string, unknown>, path: string, value: unknown, source: string): void {
	const segments = path.split('.');
	if (segments.some(segment => segment === '')) {
		throw new FixtureError('fixture-path-invalid', {source, path, detail: 'it has an empty part'}, `cannot set ${path}: it has an empty part`);
	}

	let target: unknown = body;
	for (const [index, segment] of segments.entries()) {
		const last = index === segments.length - 1;
		const where = segments.slice(0, index).join('.') || 'the body';
		if (Array.isArray(target)) {
			if (!isIndex(segment) || Number(segment) > target.length) {
				throw new FixtureError('fixture-path-invalid', {source, path, detail: `${where} is a list of ${target.length}, so "${segment}" is no place in it`}, `cannot set ${path}`);
			}

			const position = Number(segment);
			if (last) {
				target[position] = value;
				return;
			}

			target[position] ??= {};
			target = target[position];
		} else if (isRecord(target)) {
			if (last) {
				target[segment] = value;
				return;
			}

			target[segment] ??= {};
			target = target[segment];
		} else {
			throw new FixtureError('fixture-path-invalid', {source, path, detail: `${where} is ${target === null ? 'null' : typeof target}, not an object`}, `cannot set ${path}`);
		}
	}
}

/** The receiver settings a body is checked against: serve's defaults. */
export type IntakeDefaults = Pick<IntakeConfig, 'toleranceSeconds' | 'maxBodyBytes' | 'replayWindowMs'>;

export const serveIntakeDefaults: IntakeDefaults = {toleranceSeconds: 300, maxBodyBytes: 1024 * 1024, replayWindowMs: 7 * 86_400_000};

/**
 * Signs `text` and puts the delivery through serve's intake (headers, size, signature, JSON,
 * replay window, the chosen event's required fields). Throws `fixture-refused` with the reason
 * serve would give; returns the signed delivery otherwise.
 */
export function checkedDelivery(text: string, options: {secret: string; now: Date; source: string; intake?: IntakeDefaults}): {body: string; headers: Record<string, string>} {
	const parsed = parseFixture(text, options.source);
	const nowMs = options.now.getTime();
	const delivery = signBody(text, parsed, options.secret, Math.floor(nowMs / 1000));
	const intake = options.intake ?? serveIntakeDefaults;
	const headers = {
		contentLength: String(Buffer.byteLength(text)),
		signature: delivery.headers['x-platform-signature'] ?? '',
		createdAt: delivery.headers['x-platform-created-at'] ?? '',
		id: delivery.headers['x-platform-id'] ?? '',
		userAgent: '',
	};
	const refuse = (status: number, error: string, missing?: string[]) => new FixtureError('fixture-refused', {source: options.source, status, error, ...(missing ? {missing} : {})}, `serve would refuse ${options.source}: ${error}`);
	const early = checkHeaders(headers, intake);
	if (early) {
		throw refuse(early.status, early.error);
	}

	const decision = intakeBody({headers, body: Buffer.from(text), nowMs, receivedAt: options.now.toISOString(), fallbackId: 'fixture'}, {...intake, keys: prepareWebhookSecrets([options.secret])});
	if (decision.kind === 'reject') {
		throw refuse(decision.status, decision.error);
	}

	if (decision.view.handling === 'invalid') {
		const missing = decision.view.missing ?? [];
		throw refuse(200, `it would be stored without an answer: it lacks ${missing.join(', ')}`, missing);
	}

	return delivery;
}
