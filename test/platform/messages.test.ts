import {describe, expect, it} from 'vitest';
import {platformMessages} from '../../source/cli/messages/platform.js';
import {platformErrorCodes, type PlatformErrorData} from '../../source/platform/errors.js';

const base: PlatformErrorData = {operation: 'createChat', method: 'POST', path: '/space/chat', attempts: 1, elapsedMs: 120};

function word(code: string, data: Partial<PlatformErrorData> & Record<string, unknown>) {
	const entry = platformMessages[code];
	if (!entry) {
		throw new Error(`no wording for ${code}`);
	}

	return entry({...base, ...data});
}

describe('platform wording', () => {
	it('words every code the client raises', () => {
		for (const code of Object.values(platformErrorCodes)) {
			const wording = word(code, {status: 500});
			expect(wording.message.length).toBeGreaterThan(10);
			expect(wording.next).toBeDefined();
		}
	});

	it('a malformed answer names the operation, the field and the request id', () => {
		const wording = word('platform-malformed-response', {status: 200, field: 'id', detail: 'id is missing', requestId: 'req_1'});
		expect(wording.message).toBe('Create chat (POST /space/chat) answered HTTP 200 with a malformed body: id is missing (request id req_1)');
	});

	it('no answer says how many attempts over how long', () => {
		const wording = word('platform-no-answer', {operation: 'getSpace', method: 'GET', path: '/space/a', attempts: 3, elapsedMs: 45_000});
		expect(wording.message).toBe('Get space (GET /space/a) got no answer after 3 attempts over 45 s');
	});

	it('401 says what to check and how to replace the key', () => {
		const wording = word('platform-unauthorized', {status: 401, platformMessage: 'Invalid key …0001', requestId: 'req_2'});
		expect(wording.message).toBe('Create chat (POST /space/chat) was refused with HTTP 401: Invalid key …0001 (request id req_2): the API key is wrong, expired or revoked');
		expect(wording.next).toContain('keys set');
	});

	it('a refused connection names the host and the system code', () => {
		const wording = word('platform-connection-refused', {target: '127.0.0.1:9', systemCode: 'ECONNREFUSED', attempts: 4, elapsedMs: 3500});
		expect(wording.message).toBe('Create chat (POST /space/chat) could not reach 127.0.0.1:9 (ECONNREFUSED) after 4 attempts over 3.5 s');
	});
});
