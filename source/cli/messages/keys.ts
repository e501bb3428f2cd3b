/**
 * The sentences for the keys domain's error codes (source/keys/errors.ts), and for rotation
 * outcomes that produced a key but not cleanly (not stored, expiry unknown).
 */
import {formatSeconds} from '../../format/duration.js';
import {formatUtc} from '../../keys/time.js';
import type {RotationErrorData} from '../../keys/errors.js';
import {settingWhere} from './setting-source.js';
import type {ErrorWording, MessageTable} from './types.js';

function where(data: RotationErrorData): string {
	return data.source === 'env' ? 'PLATFORM_API_KEY' : 'the stored key';
}

function request(data: RotationErrorData): string {
	return data.requestId ? ` (request id ${data.requestId})` : '';
}

const key = (data: RotationErrorData) => data.keyMasked ?? 'the current key';

/** When the platform may have issued a key we never received: what is known and what to check. */
function maybeIssued(data: RotationErrorData): string {
	return `The platform may have issued a new key before failing; if so it was lost, and ${key(data)} (${where(data)}, still the key in use) keeps working only until its overlap ends. Rotate again now (safe while ${key(data)} works) so a new key is stored, and check the result with \`platform-tui keys show\``;
}

function refused(data: RotationErrorData): ErrorWording {
	if (data.status === 403) {
		return {
			message: `The platform does not allow the current key ${key(data)} to rotate (HTTP 403: ${data.platformMessage ?? 'forbidden'})${request(data)}; the key is unchanged.`,
			next: 'Check that the key and the app id belong together.',
		};
	}

	return {
		message: `The platform refused the current key ${key(data)} (${where(data)}) with HTTP 401${request(data)}: it has expired or been revoked, so it cannot rotate itself.`,
		next: `Get a new key from the platform's admin console, store it with \`platform-tui keys set\`${data.source === 'env' ? ' (and update PLATFORM_API_KEY)' : ''}, then rotate again if needed.`,
	};
}

function failed(data: RotationErrorData): ErrorWording {
	const status = `HTTP ${data.status ?? '?'}: ${data.platformMessage ?? 'no message'}`;
	if (data.maybeIssued) {
		return {
			message: `The platform failed while rotating the key (${status})${request(data)}.`,
			next: `${maybeIssued(data)}; if it fails again, give the platform operator the request id.`,
		};
	}

	return {message: `The platform could not rotate the key: ${status}${request(data)}. The key ${key(data)} is unchanged; try again shortly.`};
}

function unreachable(data: RotationErrorData): ErrorWording {
	const what = data.timeoutMs === undefined
		? `could not reach ${data.baseUrl ?? 'the platform'}${data.errno ? ` (${data.errno})` : ''}`
		: `no answer from ${data.baseUrl ?? 'the platform'} in ${formatSeconds(data.timeoutMs)}`;
	if (data.maybeIssued) {
		return {
			message: `Key rotation failed: ${what}.`,
			next: `${maybeIssued(data)}. Check ${settingWhere('baseUrl', data)} and the network first.`,
		};
	}

	return {
		message: `Key rotation failed: ${what}. The key ${key(data)} is unchanged.`,
		next: `Check ${settingWhere('baseUrl', data)} and the network, then try again.`,
	};
}

/** The platform issued a key and refused it on the check call: the old key is kept. */
function newKeyRefused(data: RotationErrorData): ErrorWording {
	const until = data.previousKeyExpiresAt ? `, where it works until ${formatUtc(new Date(data.previousKeyExpiresAt))}` : '';
	return {
		message: `The platform issued a new key ${data.newKeyMasked ?? ''} but refused it on the call that checks it (HTTP ${data.status ?? '?'}: ${data.platformMessage ?? 'refused'})${request(data)}; the new key was not stored, and ${key(data)} stays ${data.source === 'env' ? 'in use (PLATFORM_API_KEY)' : 'stored'}${until}.`,
		next: `Check that the app id and the user and company ids belong to the key, then rotate again before the old key expires; if it is refused again, give the platform operator the request id.`,
	};
}

/** Why a dotenv file cannot be written, by the system's code for the path that stops it. */
function blockedBecause(data: RotationErrorData): string {
	const at = data.blockedPath ?? 'its folder';
	switch (data.errno) {
		case 'ENOENT': {
			return `its folder ${at} does not exist`;
		}

		case 'ENOTDIR': {
			return `${at} is not a folder`;
		}

		case 'EISDIR': {
			return 'it is a folder';
		}

		case 'EACCES':
		case 'EPERM': {
			return `this user may not write ${at}`;
		}

		case 'EROFS': {
			return `${at} is on a read-only file system`;
		}

		default: {
			return `${data.errno ?? 'an error'} on ${at}`;
		}
	}
}

export const keysMessages: MessageTable = {
	'key-missing': () => ({
		message: 'No API key is set, so there is nothing to rotate.',
		next: 'Store one with `platform-tui keys set` or set PLATFORM_API_KEY.',
	}),
	'key-invalid': (data: {problem: string}) => ({
		message: `No API key was stored: ${data.problem}; the stored key is unchanged.`,
		next: 'Pipe only the key: printf %s "$KEY" | platform-tui keys set',
	}),
	'rotation-refused': refused,
	'rotation-failed': failed,
	'rotation-unreachable': unreachable,
	'rotation-new-key-refused': newKeyRefused,
	'env-file-unwritable': (data: RotationErrorData) => ({
		message: `The dotenv file ${data.envFile ?? ''} cannot be written: ${blockedBecause(data)}; nothing was rotated, and ${key(data)} is still the key in use.`,
		next: data.errno === 'EISDIR' ? 'Name a file inside it with --dotenv, then rotate again.' : 'Create the folder or fix its permissions, or name another file with --dotenv, then rotate again.',
	}),
	'rotation-malformed': (data: RotationErrorData) => ({
		message: `The platform's answer to POST /v2/keys/rotate is malformed (${data.detail ?? 'unreadable'})${request(data)}; no new key could be read from it, so none was stored and ${key(data)} is still the key in use.`,
		next: `${maybeIssued(data)}; report the answer to the platform operator.`,
	}),
};
