import {describe, expect, it} from 'vitest';
import {durationFlag, intFlag, portFlag, secondsFlag, urlFlag, UsageError} from '../../source/cli/validators.js';

function message(run: () => unknown): string {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}

	throw new Error('expected a UsageError');
}

describe('flag validators', () => {
	it('word a bad number alike whether it is not a number or out of range', () => {
		const range = {min: 1, max: 64, fallback: 4};
		expect(message(() => intFlag({concurrency: 'abc'}, 'concurrency', range))).toBe('--concurrency must be a whole number from 1 to 64, e.g. --concurrency 4; got "abc".');
		expect(message(() => intFlag({concurrency: '0'}, 'concurrency', range))).toBe('--concurrency must be a whole number from 1 to 64, e.g. --concurrency 4; got "0".');
		expect(message(() => intFlag({concurrency: ''}, 'concurrency', range))).toBe('--concurrency must be a whole number from 1 to 64, e.g. --concurrency 4; got "".');
		expect(intFlag({concurrency: '8'}, 'concurrency', range)).toBe(8);
		expect(intFlag({}, 'concurrency', range)).toBe(4);
		expect(message(() => portFlag({port: '70000'}, 'port', 8080))).toBe('--port must be a whole number from 0 to 65535, e.g. --port 8080; got "70000".');
	});

	it('seconds, durations and URLs use the same sentence shape', () => {
		expect(secondsFlag({drainTimeout: '2.5'}, 'drainTimeout', {max: 600, fallbackSeconds: 25})).toBe(2500);
		expect(message(() => secondsFlag({drainTimeout: 'soon'}, 'drainTimeout', {max: 600, fallbackSeconds: 25}))).toMatch(/^--drain-timeout must be a number of seconds [^;]+; got "soon"\.$/);
		expect(durationFlag({keyOverlap: '1h30m'}, 'keyOverlap', {min: 0, max: 7 * 86_400_000, fallbackMs: 0})).toBe(5_400_000);
		expect(message(() => durationFlag({keyOverlap: 'later'}, 'keyOverlap', {min: 0, max: 1000, fallbackMs: 0}))).toMatch(/^--key-overlap must be a duration [^;]+; got "later"\.$/);
		expect(urlFlag({baseUrl: ' http://127.0.0.1:4010 '}, 'baseUrl')).toBe('http://127.0.0.1:4010');
		expect(message(() => urlFlag({baseUrl: 'ftp://x'}, 'baseUrl'))).toBe('--base-url must be a URL starting with http:// or https://, e.g. --base-url http://127.0.0.1:8080; got "ftp://x".');
		expect(message(() => urlFlag({baseUrl: 'not a url'}, 'baseUrl'))).toMatch(/got "not a url"\.$/);
	});
});
