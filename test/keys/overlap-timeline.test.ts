/**
 * `keys show`'s overlap timeline: a bar from the rotation to the old key's expiry with now on it,
 * drawn on a coloured terminal within its width (40 and 120 columns); nothing added without colour
 * or a terminal, and --json unchanged.
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import keysShow from '../../source/commands/keys/show.js';
import {ConfigStore} from '../../source/config/store.js';
import {displayWidth} from '../../source/format/width.js';
import type {KeyStatus} from '../../source/keys/status.js';
import {overlapLines} from '../../source/ui/keys/overlap-timeline.js';
import {memoryStream, runCommand, testEnv} from '../support/run-command.js';

const rotatedAt = Date.parse('2031-03-11T09:00:00.000Z');
const hour = 3_600_000;
const status = (previous: Partial<NonNullable<KeyStatus['previousKey']>> = {}): KeyStatus => ({
	configPath: '/config.json',
	envHoldsPreviousKey: false,
	key: {masked: '…new1', source: 'stored'},
	lastRotatedAt: new Date(rotatedAt).toISOString(),
	previousKey: {masked: '…old1', expiresAt: new Date(rotatedAt + (4 * hour)).toISOString(), valid: true, remainingMs: 3 * hour, ...previous},
});
const oneHourIn = new Date(rotatedAt + hour);

describe('the overlap timeline', () => {
	it('puts now a quarter of the way from the rotation to the expiry, with the age and the time left', () => {
		expect(overlapLines(status(), oneHourIn, {pictures: true, columns: 76})).toEqual([
			`Overlap        ${'━'.repeat(15)}●${'─'.repeat(44)}`,
			`               new key 1 h 00 min old${' '.repeat(15)}old key 3 h 00 min left`,
		]);
	});

	it('fits 40 and 120 columns, the labels on two lines when they do not fit on one', () => {
		for (const columns of [40, 120]) {
			const lines = overlapLines(status(), oneHourIn, {pictures: true, columns});
			expect(lines.length).toBeGreaterThanOrEqual(2);
			for (const line of lines) {
				expect(displayWidth(line)).toBeLessThanOrEqual(columns);
			}
		}

		expect(overlapLines(status(), oneHourIn, {pictures: true, columns: 40})).toHaveLength(3);
		expect(overlapLines(status(), oneHourIn, {pictures: true, columns: 120})).toHaveLength(2);
	});

	it('adds nothing without pictures, once the old key expired, or on a terminal too narrow', () => {
		expect(overlapLines(status(), oneHourIn, {pictures: false, columns: 120})).toEqual([]);
		expect(overlapLines(status({valid: false, remainingMs: 0}), oneHourIn, {pictures: true})).toEqual([]);
		expect(overlapLines(status(), oneHourIn, {pictures: true, columns: 20})).toEqual([]);
		const unknown = status();
		delete unknown.lastRotatedAt;
		expect(overlapLines(unknown, oneHourIn, {pictures: true})).toEqual([]);
	});
});

describe('keys show with the timeline', () => {
	async function rotatedConfig(): Promise<NodeJS.ProcessEnv> {
		const env = testEnv({PLATFORM_TUI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'platform-tui-overlap-')), PLATFORM_API_KEY: undefined});
		await new ConfigStore(env).transaction(async transaction => transaction.write({
			apiKey: 'sk_new_key_0000new1',
			rotation: {
				previousKeyMasked: '…old1',
				previousKeyExpiresAt: new Date(rotatedAt + (4 * hour)).toISOString(),
				lastRotatedAt: new Date(rotatedAt).toISOString(),
				keySetAt: new Date(rotatedAt).toISOString(),
			},
		}));
		return env;
	}

	const clock = {now: () => oneHourIn.getTime()};

	for (const columns of [40, 120]) {
		it(`draws it on a coloured terminal of ${columns} columns`, async () => {
			const env = await rotatedConfig();
			const stdout = Object.assign(memoryStream(), {isTTY: true, columns});
			const shown = await runCommand(keysShow, {env: {...env, NO_COLOR: undefined, TERM: 'xterm-256color', FORCE_COLOR: undefined}, clock, stdout});
			expect(shown.code).toBe(0);
			expect(shown.stdout).toMatch(/^Overlap {8}━+●─+$/m);
			expect(shown.stdout).toMatch(/^ {15}(new key 1 h 00 min old)?\s*old key 3 h 00 min left$/m);
			for (const line of shown.stdout.split('\n').filter(text => /Overlap|new key|old key/.test(text))) {
				expect(displayWidth(line)).toBeLessThanOrEqual(columns);
			}
		});
	}

	it('says it in words only under NO_COLOR or into a pipe, and --json is unchanged', async () => {
		const env = await rotatedConfig();
		const noColor = await runCommand(keysShow, {env: {...env, NO_COLOR: '1'}, clock, stdout: Object.assign(memoryStream(), {isTTY: true, columns: 120})});
		const piped = await runCommand(keysShow, {env, clock});
		for (const run of [noColor, piped]) {
			expect(run.stdout).not.toContain('Overlap');
			expect(run.stdout).toMatch(/Previous key {3}…old1 still works until 2031-03-11 13:00:00 UTC/);
			expect(run.stdout).toContain('3 h 00 min left');
		}

		const json = JSON.parse((await runCommand(keysShow, {env, clock, json: true})).stdout) as Record<string, unknown>;
		expect(Object.keys(json)).not.toContain('overlap');
	});
});
