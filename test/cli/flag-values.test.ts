/**
 * A flag's declaration is the whole of it: its value comes from the line, else its environment
 * variable, else its default, and a value outside its range is refused with the declared rule.
 */
import {describe, expect, it} from 'vitest';
import {readFlags} from '../../source/cli/flag-values.js';
import {flagRule} from '../../source/cli/flag-rule.js';
import {sharedFlags, storeFlags} from '../../source/cli/flags.js';
import {parseStore} from '../../source/commands/events/store-flags.js';
import {parseServe, serveFlags} from '../../source/commands/serve/flags.js';
import {settingSpecs} from '../../source/config/settings.js';
import {receiverDefaults} from '../../source/receiver/receiver-options.js';

const declared = {
	port: {type: 'number', default: 8080, range: {kind: 'int', min: 0, max: 65_535}},
	level: {type: 'string', env: 'TEST_LEVEL', default: 'low', range: {kind: 'choice', choices: ['low', 'high']}},
	wait: {type: 'number', range: {kind: 'seconds', max: 60, example: 5}},
	tag: {type: 'string', isMultiple: true},
} as const;

describe('readFlags', () => {
	it('reads flag > environment variable > default', () => {
		expect(readFlags(declared, {flags: {}, env: {}})).toEqual({port: 8080, level: 'low', wait: undefined, tag: []});
		expect(readFlags(declared, {flags: {}, env: {TEST_LEVEL: 'high'}}).level).toBe('high');
		expect(readFlags(declared, {flags: {level: 'low'}, env: {TEST_LEVEL: 'high'}}).level).toBe('low');
		expect(readFlags(declared, {flags: {}, env: {TEST_LEVEL: '  '}}).level).toBe('low');
	});

	it('converts by the range: seconds to milliseconds, every value of a repeatable flag', () => {
		expect(readFlags(declared, {flags: {wait: '1.5', tag: ['a', ' b ']}, env: {}})).toMatchObject({wait: 1500, tag: ['a', 'b']});
	});

	it('refuses a value outside the range with the declared rule and a value that passes', () => {
		expect(() => readFlags(declared, {flags: {port: '70000'}, env: {}})).toThrow('--port must be a whole number from 0 to 65535, e.g. --port 8080; got "70000".');
		expect(() => readFlags(declared, {flags: {wait: '0'}, env: {}})).toThrow('--wait must be a number of seconds above 0 up to 60, e.g. --wait 5; got "0".');
		expect(() => readFlags(declared, {flags: {level: 'mid'}, env: {}})).toThrow(`--level must be ${flagRule({kind: 'choice', choices: ['low', 'high']})}, e.g. --level low; got "mid".`);
	});

	it('names the environment variable, not the flag, when the variable gave the value', () => {
		expect(() => readFlags(declared, {flags: {}, env: {TEST_LEVEL: 'mid'}})).toThrow(`TEST_LEVEL must be ${flagRule({kind: 'choice', choices: ['low', 'high']})}, e.g. TEST_LEVEL=low; got "mid".`);
		expect(() => readFlags(declared, {flags: {level: 'mid'}, env: {TEST_LEVEL: 'high'}})).toThrow('--level must be');
	});
});

describe('serve\'s flags', () => {
	it('default to the receiver\'s own defaults, declared once', () => {
		const options = parseServe({argv: [], flags: {}, env: {}});
		const receiver = receiverDefaults;
		expect(options.concurrency).toBe(receiver.concurrency);
		expect(options.toleranceSeconds).toBe(receiver.toleranceSeconds);
		expect(options.drainTimeoutMs).toBe(receiver.drainTimeoutMs);
		expect(serveFlags.concurrency.default).toBe(receiver.concurrency);
	});

	it('refuse a value with the range their declaration gives', () => {
		expect(() => parseServe({argv: [], flags: {platformRate: '0'}, env: {}})).toThrow('--platform-rate must be a number of calls per second above 0 and up to 100000, e.g. --platform-rate 5; got "0".');
		expect(() => parseServe({argv: [], flags: {retention: '1h'}, env: {}})).toThrow('--retention must be a duration from 1d to 3650d, e.g. --retention 24h; got "1h".');
	});
});

describe('environment variables come from the declarations', () => {
	it('--redis and --data-dir read PLATFORM_REDIS_URL and PLATFORM_TUI_DATA_DIR, the flag first', () => {
		expect(parseStore({}, {PLATFORM_REDIS_URL: 'redis://127.0.0.1:6390', PLATFORM_TUI_DATA_DIR: '/tmp/x'})).toEqual({redisUrl: 'redis://127.0.0.1:6390', dataDir: '/tmp/x'});
		expect(parseStore({redis: 'redis://127.0.0.1:6391'}, {PLATFORM_REDIS_URL: 'redis://127.0.0.1:6390'})).toEqual({redisUrl: 'redis://127.0.0.1:6391'});
		expect(() => parseStore({}, {PLATFORM_REDIS_URL: 'http://127.0.0.1'})).toThrow('PLATFORM_REDIS_URL must be a URL starting with redis:// or rediss://');
		expect(() => parseStore({redis: 'http://127.0.0.1'}, {})).toThrow('--redis must be a URL starting with redis:// or rediss://');
		expect(storeFlags.redis.env).toBe('PLATFORM_REDIS_URL');
	});

	it('the connection flags carry their setting\'s environment variable', () => {
		for (const name of ['baseUrl', 'appId', 'userId', 'companyId', 'assistantId', 'model'] as const) {
			expect(sharedFlags[name].env).toBe(settingSpecs[name].env);
		}
	});
});
