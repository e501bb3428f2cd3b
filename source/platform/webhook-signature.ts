import {createHmac, createSecretKey, timingSafeEqual, type KeyObject} from 'node:crypto';

/** Header names the platform uses on webhook deliveries (platform-api.md, "Webhooks"). */
export const webhookHeaders = {
	id: 'x-platform-id',
	signature: 'x-platform-signature',
	version: 'x-platform-version',
	createdAt: 'x-platform-created-at',
	userId: 'x-platform-user-id',
	companyId: 'x-platform-company-id',
} as const;

export const webhookPayloadVersion = '1.0.0';

/** HMAC-SHA256 of the exact body bytes, keyed with the endpoint secret. */
function bodyHmac(body: string | Uint8Array, secret: string | KeyObject): Buffer {
	return createHmac('sha256', secret).update(body).digest();
}

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the endpoint secret. */
export function signWebhookBody(body: string | Uint8Array, secret: string | KeyObject): string {
	return bodyHmac(body, secret).toString('hex');
}

/**
 * Prepares endpoint secrets once for `verifyWebhookSignature` (a KeyObject saves converting the
 * secret on every delivery, which matters to a busy receiver).
 */
export function prepareWebhookSecrets(secrets: readonly string[]): KeyObject[] {
	return secrets.map(secret => createSecretKey(Buffer.from(secret, 'utf8')));
}

/** The 32 bytes a signature of 64 hex digits (either case) stands for; undefined for anything else. */
function signatureBytes(signature: string): Buffer | undefined {
	// Checked first: Buffer.from(…, 'hex') reads only the low byte of each character, so it would
	// take some non-ASCII characters for digits.
	return /^[\da-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : undefined;
}

export type SignatureCheck =
	| {ok: true; secretIndex: number}
	| {ok: false; reason: 'malformed-signature' | 'signature-mismatch' | 'malformed-timestamp' | 'timestamp-outside-tolerance'};

/**
 * Verifies a delivery: the signature must match the HMAC of the raw bytes under one of the
 * secrets (compared in constant time) and Created-At must be an integer number of unix seconds
 * within ±toleranceSeconds of now.
 */
export function verifyWebhookSignature(options: {
	body: Uint8Array | string;
	signature: string;
	createdAt: string;
	/** Endpoint secrets, as strings or as prepared by `prepareWebhookSecrets`. */
	secrets: ReadonlyArray<string | KeyObject>;
	toleranceSeconds: number;
	nowSeconds?: number;
}): SignatureCheck {
	const {body, signature, createdAt, secrets, toleranceSeconds} = options;
	const given = signatureBytes(signature);
	if (!given) {
		return {ok: false, reason: 'malformed-signature'};
	}

	let matched = -1;
	for (const [index, secret] of secrets.entries()) {
		const expected = bodyHmac(body, secret);
		// Check every secret so the time taken does not depend on which one matched.
		if (timingSafeEqual(expected, given) && matched === -1) {
			matched = index;
		}
	}

	if (matched === -1) {
		return {ok: false, reason: 'signature-mismatch'};
	}

	if (!/^\d{1,12}$/.test(createdAt.trim())) {
		return {ok: false, reason: 'malformed-timestamp'};
	}

	const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
	if (Math.abs(now - Number(createdAt.trim())) > toleranceSeconds) {
		return {ok: false, reason: 'timestamp-outside-tolerance'};
	}

	return {ok: true, secretIndex: matched};
}
