import {randomBytes} from 'node:crypto';

const lowerAlphanumeric = 'abcdefghijklmnopqrstuvwxyz0123456789';
const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
	// Rejection sampling keeps every character equally likely.
	const limit = 256 - (256 % alphabet.length);
	let out = '';
	while (out.length < length) {
		for (const byte of randomBytes(length * 2)) {
			if (byte < limit) {
				out += alphabet.charAt(byte % alphabet.length);
				if (out.length === length) {
					break;
				}
			}
		}
	}

	return out;
}

/** An id shaped like the platform's: `<prefix>_` followed by 24 lowercase letters and digits. */
export function newId(prefix: string): string {
	return `${prefix}_${randomString(lowerAlphanumeric, 24)}`;
}

/** A fresh API key shaped like the platform's (`sk_live_` + 40 base62 characters). */
export function newApiKey(): string {
	return `sk_live_${randomString(base62, 40)}`;
}

/** An opaque token for pre-signed blob addresses and request ids. */
export function newToken(length = 32): string {
	return randomString(base62, length);
}

/**
 * A small seeded pseudo-random generator (mulberry32). Used only for fault injection so that a
 * given seed always fails the same requests; ids and keys always use node:crypto.
 */
export function seededRandom(seed: number): () => number {
	let state = Math.trunc(seed) >>> 0;
	return () => {
		state = (state + 0x6d_2b_79_f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}
