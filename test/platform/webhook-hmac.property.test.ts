/**
 * A prepared endpoint secret (the two padded keys, each hashed with what follows it) gives HMAC-SHA256 itself:
 * compared with node:crypto's own Hmac over any secret (empty, a block long, longer than a block,
 * any Unicode) and any body, as bytes or text, and a prepared secret gives the same answer for
 * every body it is used for (its keyed states are copied, never consumed).
 */
import {createHmac} from 'node:crypto';
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {PreparedSecret, prepareWebhookSecrets, signWebhookBody, verifyWebhookSignature} from '../../source/platform/webhook-signature.js';

/** Seeded and bounded; `PLATFORM_TUI_FC_SEED` replays a failure (fast-check prints the seed). */
const seed = Number(process.env.PLATFORM_TUI_FC_SEED ?? 20_261_126);
const hmac = (secret: string, body: string | Uint8Array) => createHmac('sha256', secret).update(body).digest('hex');

describe('a prepared endpoint secret', () => {
	it('gives HMAC-SHA256 of any body under any secret (property)', () => {
		const secrets = fc.oneof(fc.string({unit: 'grapheme', maxLength: 100}), fc.string({minLength: 60, maxLength: 70}), fc.string({unit: 'binary', minLength: 0, maxLength: 200}));
		const bodies = fc.oneof(fc.uint8Array({maxLength: 2000}), fc.string({unit: 'binary', maxLength: 500}));
		fc.assert(fc.property(secrets, fc.array(bodies, {minLength: 1, maxLength: 4}), (secret, list) => {
			const prepared = new PreparedSecret(secret);
			for (const body of list) {
				expect(prepared.hmac(body).toString('hex')).toBe(hmac(secret, body));
				expect(signWebhookBody(body, prepared)).toBe(signWebhookBody(body, secret));
			}
		}), {seed, numRuns: 200});
	});

	it('matches at the block boundary: secrets of 63, 64 and 65 bytes, and none', () => {
		for (const secret of ['', 'a'.repeat(63), 'a'.repeat(64), 'a'.repeat(65), 'é'.repeat(32)]) {
			expect(new PreparedSecret(secret).hmac('{"id":"evt_1"}').toString('hex')).toBe(hmac(secret, '{"id":"evt_1"}'));
		}
	});

	it('matches a body either side of its scratch buffer (16 KiB), and refuses a digest with one bit changed', () => {
		const secret = new PreparedSecret('whsec_edge');
		for (const length of [0, 16 * 1024, (16 * 1024) + 1, 70_000]) {
			const body = Buffer.alloc(length, 0x61);
			const digest = Buffer.from(hmac('whsec_edge', body), 'hex');
			expect(secret.matches(body, digest)).toBe(true);
			expect(secret.hmac(body).equals(digest)).toBe(true);
			digest[length % 32] = (digest[length % 32] ?? 0) ^ 1;
			expect(secret.matches(body, digest)).toBe(false);
		}
	});

	it('verifies a delivery signed with either of two secrets and names which', () => {
		const body = Buffer.from('{"id":"evt_1","event":"platform.chat.user-message.created"}');
		const secrets = prepareWebhookSecrets(['whsec_old', 'whsec_new']);
		const now = 1_795_491_772;
		for (const [index, secret] of ['whsec_old', 'whsec_new'].entries()) {
			expect(verifyWebhookSignature({body, signature: hmac(secret, body), createdAt: String(now), secrets, toleranceSeconds: 300, nowSeconds: now})).toEqual({ok: true, secretIndex: index});
		}

		expect(verifyWebhookSignature({body, signature: hmac('whsec_other', body), createdAt: String(now), secrets, toleranceSeconds: 300, nowSeconds: now})).toEqual({ok: false, reason: 'signature-mismatch'});
	});
});
