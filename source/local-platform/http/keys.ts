import type {KeyRotation} from '../records.js';
import {isoNow, type PlatformClock} from '../clock.js';
import type {Caller} from '../context.js';
import {HttpError} from './http.js';
import {newApiKey} from '../ids.js';
import {ok, type Route} from './router.js';
import type {LocalPlatformEvent} from '../types.js';

type KeyRecord = {createdAt: number; expiresAt: number | null};

/** The API keys: the newest one, those rotated out (working until their expiry), and rotation. */
export class KeyRing {
	private readonly keys = new Map<string, KeyRecord>();
	private newest: string;

	constructor(
		private readonly clock: PlatformClock,
		private readonly overlapMs: number,
		private readonly maxKeys: number,
		firstKey: string = newApiKey(),
	) {
		this.newest = firstKey;
		this.keys.set(firstKey, {createdAt: clock.now(), expiresAt: null});
	}

	get current(): string {
		return this.newest;
	}

	/** Throws 401 for an unknown or expired key. */
	check(key: string): void {
		const record = this.keys.get(key);
		if (record === undefined) {
			throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
		}

		if (record.expiresAt !== null && record.expiresAt <= this.clock.now()) {
			throw new HttpError(401, 'UNAUTHORIZED', `API key expired at ${new Date(record.expiresAt).toISOString()} (it was rotated)`);
		}
	}

	/**
	 * Issues a new key. Every key that had no expiry (the newest one) now expires after the
	 * overlap; keys rotated out earlier keep their own expiry. The answer's old_key_expires_at is
	 * the expiry of the key the call was made with.
	 */
	rotate(usedKey: string): KeyRotation {
		const nowMs = this.clock.now();
		const expiresAt = nowMs + this.overlapMs;
		for (const record of this.keys.values()) {
			record.expiresAt ??= expiresAt;
		}

		const newKey = newApiKey();
		this.keys.set(newKey, {createdAt: nowMs, expiresAt: null});
		this.newest = newKey;
		while (this.keys.size > this.maxKeys) {
			const entries = [...this.keys.entries()];
			const victim = entries.find(([, record]) => record.expiresAt !== null && record.expiresAt <= nowMs)
				?? entries.find(([key]) => key !== newKey);
			if (victim === undefined) {
				break;
			}

			this.keys.delete(victim[0]);
		}

		const used = this.keys.get(usedKey)?.expiresAt ?? expiresAt;
		return {new_key: newKey, old_key_expires_at: new Date(used).toISOString()};
	}
}

export function keyRoutes(keys: KeyRing, clock: PlatformClock, emit: (event: LocalPlatformEvent) => void): Route[] {
	return [{
		operation: 'rotateKey',
		method: 'POST',
		path: '/v2/keys/rotate',
		handle({caller}: {caller: Caller}) {
			const rotation = keys.rotate(caller.apiKey);
			emit({type: 'key-rotated', at: isoNow(clock), oldKeyExpiresAt: rotation.old_key_expires_at});
			return ok(rotation);
		},
	}];
}
