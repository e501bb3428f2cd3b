/**
 * A value that cannot be used is named with where it came from (docs/configuration.md): every flag
 * that falls back to an environment variable is refused as the variable when the variable gave the
 * value, and as the flag only when the flag did. One table over every command's declared flags.
 */
import {describe, expect, it} from 'vitest';
import {readFlag} from '../../source/cli/flag-values.js';
import {globalFlags} from '../../source/cli/flags.js';
import {kebab} from '../../source/cli/kebab.js';
import type {FlagSpec} from '../../source/cli/flag-spec.js';
import {registry} from '../../source/commands/registry.js';
import {runCliInProcess} from '../support/run-cli.js';

/** A value no declared rule accepts (not a number, duration, URL, choice or profile name). */
const bad = '%% not valid %%';

/** Every declared flag that has an environment variable, by name (a name declared twice must mean one variable). */
async function flagsWithEnv(): Promise<Map<string, FlagSpec & {env: string}>> {
	const all: Array<[string, FlagSpec]> = Object.entries(globalFlags);
	for (const entry of registry) {
		all.push(...Object.entries((await entry.load()).default.flags));
	}

	const found = new Map<string, FlagSpec & {env: string}>();
	for (const [name, spec] of all) {
		if (spec.env !== undefined) {
			found.set(`${name} ${spec.env}`, {...spec, env: spec.env});
		}
	}

	return found;
}

function refusal(read: () => unknown): string | undefined {
	try {
		read();
		return undefined;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}

describe('a refused value names where it came from', () => {
	it('every flag with an environment variable: the variable when it gave the value, the flag when typed', async () => {
		const refused: string[] = [];
		for (const [key, spec] of await flagsWithEnv()) {
			const name = key.split(' ')[0] ?? '';
			const fromFlag = refusal(() => readFlag(spec, name, {flags: {[name]: bad}, env: {[spec.env]: bad}}));
			const fromEnv = refusal(() => readFlag(spec, name, {flags: {}, env: {[spec.env]: bad}}));
			// A flag without a rule takes any text from either place.
			expect(fromEnv === undefined, key).toBe(fromFlag === undefined);
			if (fromFlag === undefined || fromEnv === undefined) {
				continue;
			}

			refused.push(spec.env);
			expect(fromFlag, key).toMatch(new RegExp(`^--${kebab(name)} must be `));
			expect(fromEnv, key).toMatch(new RegExp(`^${spec.env} must be `));
			expect(fromEnv, key).not.toContain(`--${kebab(name)}`);
			expect(fromEnv, key).toContain(`got ${JSON.stringify(bad)}.`);
		}

		// The table is not empty: the ones with a rule today.
		expect(refused).toEqual(expect.arrayContaining(['PLATFORM_PROFILE', 'PLATFORM_REDIS_URL', 'PLATFORM_EVENT_SOCKET_URL']));
	});

	it('events list with a bad PLATFORM_REDIS_URL names the variable; with a bad --redis, the flag', async () => {
		const fromEnv = await runCliInProcess(['events', 'list', '--json'], {env: {PLATFORM_REDIS_URL: 'http://x'}});
		expect(fromEnv.code).toBe(1);
		expect(fromEnv.stderr).toMatch(/^PLATFORM_REDIS_URL must be a URL starting with redis:\/\/ or rediss:\/\/ .*, e\.g\. PLATFORM_REDIS_URL=redis:\/\/127\.0\.0\.1:6379; got "http:\/\/x"\.\n/);
		expect(JSON.parse(fromEnv.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({type: 'error', code: 'flag-invalid'});
		const fromFlag = await runCliInProcess(['events', 'list', '--redis', 'http://y'], {env: {PLATFORM_REDIS_URL: 'http://x'}});
		expect(fromFlag.code).toBe(1);
		expect(fromFlag.stderr).toMatch(/^--redis must be .*; got "http:\/\/y"\.\n/);
		expect(fromFlag.stderr).not.toContain('PLATFORM_REDIS_URL');
	});

	it('listen with a bad PLATFORM_EVENT_SOCKET_URL names the variable; with a bad --socket-url, the flag', async () => {
		const fromEnv = await runCliInProcess(['listen'], {env: {PLATFORM_EVENT_SOCKET_URL: 'nope'}});
		expect(fromEnv.code).toBe(1);
		expect(fromEnv.stderr).toContain('PLATFORM_EVENT_SOCKET_URL must be a URL starting with http:// or https://, e.g. PLATFORM_EVENT_SOCKET_URL=http://127.0.0.1:8080; got "nope".');
		expect(fromEnv.stderr).not.toContain('--socket-url must');
		const fromFlag = await runCliInProcess(['listen', '--socket-url', 'nope'], {env: {PLATFORM_EVENT_SOCKET_URL: 'nope'}});
		expect(fromFlag.stderr).toContain('--socket-url must be a URL starting with http:// or https://, e.g. --socket-url http://127.0.0.1:8080; got "nope".');
	});
});
