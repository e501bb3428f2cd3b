import {createHash, createHmac, hash, timingSafeEqual} from 'node:crypto';

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

/** SHA-256's block size, the length HMAC pads its key to (RFC 2104). */
const blockBytes = 64;

/**
 * Room for the key block and a body in `scratch`; a longer body gets a buffer of its own. The
 * verification is synchronous, so one buffer serves every delivery.
 */
const scratchBodyBytes = 16 * 1024;
const digestBytes = 32;
let scratch: Buffer | undefined;

/** A buffer for `pad` and `bytes` more: `scratch` when they fit (overwritten by the next call). */
function paddedTarget(pad: Buffer, bytes: number): Buffer {
	let target: Buffer;
	if (bytes <= scratchBodyBytes) {
		scratch ??= Buffer.allocUnsafeSlow(blockBytes + scratchBodyBytes);
		target = scratch;
	} else {
		target = Buffer.allocUnsafe(blockBytes + bytes);
	}

	pad.copy(target, 0);
	return target;
}

/**
 * An endpoint secret prepared once for verifying many deliveries: HMAC-SHA256's two padded keys
 * (the key XOR ipad, and the key XOR opad; RFC 2104), each hashed with what follows it in one
 * call (crypto.hash: no hash object), the digests as latin1 text ('binary': one character a byte, no
 * Buffer made). An `Hmac` made per delivery has OpenSSL look its digest up and key it again
 * every time; copying two keyed `Hash` states per delivery made two native objects, each freed
 * by V8's weak-handle callbacks in every young-generation GC, and digests as Buffers cost about
 * as much as the hashing. The result is HMAC-SHA256 itself, byte for byte.
 */
export class PreparedSecret {
	private readonly innerPad = Buffer.alloc(blockBytes);
	private readonly outerPad = Buffer.alloc(blockBytes);

	constructor(secret: string) {
		const given = Buffer.from(secret, 'utf8');
		// A key longer than a block is hashed first, as HMAC does.
		const key = given.length > blockBytes ? createHash('sha256').update(given).digest() : given;
		for (let index = 0; index < blockBytes; index++) {
			const byte = key[index] ?? 0;
			this.innerPad[index] = byte ^ 0x36;
			this.outerPad[index] = byte ^ 0x5C;
		}

		// The key's bytes stay only in the two padded keys.
		given.fill(0);
		key.fill(0);
	}

	/** HMAC-SHA256 of `body` (a string is its UTF-8 bytes) under this secret. */
	hmac(body: string | Uint8Array): Buffer {
		return Buffer.from(this.digestText(typeof body === 'string' ? Buffer.from(body, 'utf8') : body), 'latin1');
	}

	/** Whether the HMAC of `body` is `expected` (32 bytes), compared in constant time. */
	matches(body: Uint8Array, expected: Uint8Array): boolean {
		const digest = this.digestText(body);
		let difference = 0;
		for (let index = 0; index < digestBytes; index++) {
			difference |= digest.charCodeAt(index) ^ (expected[index] ?? 0x1_00);
		}

		return difference === 0;
	}

	/** HMAC-SHA256 of `body`, its 32 bytes as 32 latin1 characters. */
	private digestText(body: Uint8Array): string {
		const inner = paddedTarget(this.innerPad, body.length);
		inner.set(body, blockBytes);
		const innerDigest = hash('sha256', inner.subarray(0, blockBytes + body.length), 'binary');
		const outer = paddedTarget(this.outerPad, digestBytes);
		outer.write(innerDigest, blockBytes, digestBytes, 'latin1');
		return hash('sha256', outer.subarray(0, blockBytes + digestBytes), 'binary');
	}
}

/** HMAC-SHA256 of the exact body bytes, keyed with the endpoint secret. */
function bodyHmac(body: string | Uint8Array, secret: string | PreparedSecret): Buffer {
	return typeof secret === 'string' ? createHmac('sha256', secret).update(body).digest() : secret.hmac(body);
}

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the endpoint secret. */
export function signWebhookBody(body: string | Uint8Array, secret: string | PreparedSecret): string {
	return bodyHmac(body, secret).toString('hex');
}

/** Prepares endpoint secrets once for `verifyWebhookSignature`, which a busy receiver calls for every delivery. */
export function prepareWebhookSecrets(secrets: readonly string[]): PreparedSecret[] {
	return secrets.map(secret => new PreparedSecret(secret));
}

/** The value of one hex digit's character code (either case); -1 for any other character. */
function hexValue(code: number): number {
	if (code >= 48 && code <= 57) {
		return code - 48;
	}

	const lower = code | 0x20;
	return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * Decodes a signature of exactly 64 hex digits (either case) into `into` (32 bytes), character by
 * character: no regex, no string copy. False for anything else (Buffer's own hex decoding reads
 * only the low byte of each character, so it would take some non-ASCII characters for digits).
 */
function decodeSignature(signature: string, into: Buffer): boolean {
	if (signature.length !== 64) {
		return false;
	}

	for (let index = 0; index < 32; index++) {
		const high = hexValue(signature.charCodeAt(index * 2));
		const low = hexValue(signature.charCodeAt((index * 2) + 1));
		if (high < 0 || low < 0) {
			return false;
		}

		into[index] = (high * 16) + low;
	}

	return true;
}

/** Unix seconds written as 1 to 12 decimal digits (surrounding white space allowed); NaN for anything else. */
function unixSeconds(text: string): number {
	const value = text.trim();
	if (value.length === 0 || value.length > 12) {
		return Number.NaN;
	}

	let seconds = 0;
	for (let index = 0; index < value.length; index++) {
		const digit = value.charCodeAt(index) - 48;
		if (digit < 0 || digit > 9) {
			return Number.NaN;
		}

		seconds = (seconds * 10) + digit;
	}

	return seconds;
}

/** The signature being checked, decoded (one buffer: verification is synchronous). */
const given = Buffer.alloc(32);

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
	secrets: ReadonlyArray<string | PreparedSecret>;
	toleranceSeconds: number;
	nowSeconds?: number;
}): SignatureCheck {
	const {body, secrets} = options;
	if (!decodeSignature(options.signature, given)) {
		return {ok: false, reason: 'malformed-signature'};
	}

	let matched = -1;
	let index = 0;
	const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
	for (const secret of secrets) {
		// Check every secret so the time taken does not depend on which one matched.
		const same = typeof secret === 'string' ? timingSafeEqual(bodyHmac(bytes, secret), given) : secret.matches(bytes, given);
		if (same && matched === -1) {
			matched = index;
		}

		index++;
	}

	if (matched === -1) {
		return {ok: false, reason: 'signature-mismatch'};
	}

	const createdAt = unixSeconds(options.createdAt);
	if (Number.isNaN(createdAt)) {
		return {ok: false, reason: 'malformed-timestamp'};
	}

	const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
	if (Math.abs(now - createdAt) > options.toleranceSeconds) {
		return {ok: false, reason: 'timestamp-outside-tolerance'};
	}

	return {ok: true, secretIndex: matched};
}
