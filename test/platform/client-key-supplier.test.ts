import {describe, expect, it} from 'vitest';
import {clientSuiteFixture} from './client-support.js';

const fixture = clientSuiteFixture();
const {client} = fixture;

describe('key supplier', () => {
	it('uses a changed key on the next call', async () => {
		let key = 'sk_first_key_1111';
		const supplied = client({apiKey: () => key});
		await supplied.getSpace('a');
		key = 'sk_second_key_2222';
		await supplied.getSpace('a');
		expect(fixture.server.requests.map(request => request.headers.authorization)).toEqual(['Bearer sk_first_key_1111', 'Bearer sk_second_key_2222']);
	});
});
