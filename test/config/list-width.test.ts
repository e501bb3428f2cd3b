/**
 * `config list` on a terminal gives the values the width first: ENV is cut and then left out, then
 * SOURCE is cut, and a value is cut last, in its middle, keeping its start and end: never to a bare
 * `…`. Ids as the local platform makes them (`company_` and 24 characters, 32 in all) and as long
 * as 36 characters.
 */
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import list from '../../source/commands/config/list.js';
import {cutMiddle} from '../../source/format/width.js';
import {memoryStream, runCommand} from '../support/run-command.js';

const ids = {
	PLATFORM_APP_ID: 'app_k3v9x2m7q8w1z5r4t6y0u2p8',
	PLATFORM_USER_ID: 'user_h7d2k9w4q1x8m3v6z0r5t2y7',
	PLATFORM_COMPANY_ID: 'company_b4n8q2w7x1k9m3v6z0r5t8y2',
	PLATFORM_ASSISTANT_ID: 'asst_9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b',
};

async function listAt(columns: number): Promise<string[]> {
	const stdout = Object.assign(memoryStream(), {isTTY: true, columns});
	const result = await runCommand(list, {env: ids, stdout});
	expect(result.code).toBe(0);
	return result.stdout.split('\n').filter(line => /^(SETTING|[a-zA-Z]+Id|baseUrl|apiKey|endpointSecret|model|keyMaxAge) /.test(line));
}

describe('config list on a terminal', () => {
	it.each([80, 60])('shows every id whole at %i columns, within the width', async columns => {
		const lines = await listAt(columns);
		expect(lines).toHaveLength(10);
		for (const line of lines) {
			expect(stringWidth(line)).toBeLessThanOrEqual(columns);
		}

		for (const [env, id] of Object.entries(ids)) {
			const line = lines.find(each => each.includes(id));
			expect(line, `${env}'s value whole`).toBeDefined();
		}
	});

	it('at 80 columns keeps SOURCE whole and gives ENV what is left; at 60 leaves ENV out', async () => {
		const wide = await listAt(80);
		expect(wide[0]).toMatch(/^SETTING +VALUE +SOURCE +ENV/);
		expect(wide.find(line => line.startsWith('appId'))).toMatch(/ env +PLATFORM_APP_ID$/);
		const narrow = await listAt(60);
		expect(narrow[0]).not.toContain('ENV');
		expect(narrow.some(line => line.includes('PLATFORM_'))).toBe(false);
	});

	it('cuts a value only last, keeping its start and end, never to a bare …', async () => {
		for (const line of await listAt(44)) {
			expect(stringWidth(line)).toBeLessThanOrEqual(44);
			expect(line).not.toMatch(/\s…(\s|$)/);
		}

		const cut = (await listAt(44)).find(line => line.startsWith('companyId')) ?? '';
		expect(cut).toMatch(/company_b\S*…\S*5t8y2/);
	});

	it('cuts in the middle in display columns', () => {
		expect(cutMiddle('cmp_2f9c1e7a4b8d4e6f9a3c5b7d1e2f4a6c', 13)).toBe('cmp_2f…2f4a6c');
		expect(stringWidth(cutMiddle('保修说明保修说明保修说明', 9))).toBeLessThanOrEqual(9);
		expect(cutMiddle('short', 12)).toBe('short');
	});
});
