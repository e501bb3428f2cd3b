import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import {cleanup} from 'ink-testing-library';
import {KeyRotationError, type RotationOutcome} from '../../../source/keys/rotate.js';
import {RotateScreen, type RotateScreenResult} from '../../../source/ui/keys/RotateScreen.js';
import {KeyPrompt, type KeyPromptResult} from '../../../source/ui/keys/KeyPrompt.js';
import {revealLines, screenResultLines, unsavedKeyLines} from '../../../source/ui/keys/outcome-text.js';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';

const newKey = 'sk_live_NEWKEY_abcdefghijklmnop_WXYZ';
const fixedNow = new Date('2030-01-01T10:00:00.000Z');

function outcome(overrides: Partial<RotationOutcome> = {}): RotationOutcome {
	return {
		rotated: true,
		newKey,
		newKeyMasked: '…WXYZ',
		previousKeyMasked: '…OLD1',
		previousKeySource: 'stored',
		expiresAt: '2030-01-01T11:30:00.000Z',
		rotatedAt: fixedNow.toISOString(),
		stored: true,
		configPath: '/tmp/platform-tui/config.json',
		envOverride: false,
		verified: true,
		...overrides,
	};
}

type Harness = ReturnType<typeof render> & {results: RotateScreenResult[]; calls: () => number};

function screen(options: {rotate?: () => Promise<RotationOutcome>; skipConfirm?: boolean; now?: () => Date} = {}): Harness {
	const results: RotateScreenResult[] = [];
	let calls = 0;
	const rotate = async () => {
		calls++;
		return (options.rotate ?? (async () => Promise.resolve(outcome())))();
	};

	const instance = render(
		<RotateScreen
			currentKeyMasked='…OLD1'
			currentKeySource='stored'
			baseUrl='http://127.0.0.1:4010'
			skipConfirm={options.skipConfirm ?? false}
			rotate={rotate}
			now={options.now ?? (() => fixedNow)}
			tickMs={20}
			onDone={result => {
				results.push(result);
			}}
		/>,
	);
	return Object.assign(instance, {results, calls: () => calls});
}

const frame = (instance: {lastFrame: () => string | undefined}) => instance.lastFrame() ?? '';

afterEach(() => {
	cleanup();
});

describe('RotateScreen', () => {
	it('shows the current key masked, explains the overlap and waits for confirmation', async () => {
		const instance = screen();
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		const shown = frame(instance);
		expect(shown).toContain('…OLD1');
		expect(shown).toContain('keeps working until the expiry');
		expect(shown).toContain('http://127.0.0.1:4010');
		expect(shown).toContain('[y/N]');
		expect(instance.calls()).toBe(0);
		expect(instance.results).toEqual([]);
	});

	it('rotates on y and shows the new key masked, the expiry in UTC and local time and the overlap left', async () => {
		const instance = screen();
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => frame(instance).includes('API key rotated'), {what: 'the success view'});
		const shown = frame(instance);
		expect(instance.calls()).toBe(1);
		expect(shown).toContain('…WXYZ');
		expect(shown).not.toContain(newKey);
		expect(shown).toContain('2030-01-01 11:30:00 UTC');
		// The local time is shown only where it is not UTC, so no time is printed twice.
		expect(shown.includes('(UTC+00:00)')).toBe(false);
		if (new Date('2030-01-01T11:30:00Z').getTimezoneOffset() !== 0) {
			expect(shown).toMatch(/\(UTC[+-]\d\d:\d\d\)/);
		}
		expect(shown).toContain('1 h 30 min');
		expect(shown).toContain('press r to reveal it once');
		expect(shown).toContain('/tmp/platform-tui/config.json');
		expect(shown).not.toContain('PLATFORM_API_KEY is set');
	});

	it('takes No as the default: Enter cancels without rotating', async () => {
		const instance = screen();
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('\r');
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'cancelled'});
		expect(instance.calls()).toBe(0);
	});

	it('with --yes rotates without asking and finishes by itself, leaving the result to ordinary output', async () => {
		const instance = screen({skipConfirm: true});
		await waitFor(() => instance.results.length === 1, {what: 'the result without a key press'});
		expect(instance.calls()).toBe(1);
		expect(instance.results[0]).toEqual({kind: 'rotated', outcome: outcome()});
		expect(instance.frames.join('\n')).not.toContain('Rotate now?');
		// The live area is gone (the header printed once stays); the command prints the result lines
		// (masked) as ordinary output.
		expect(frame(instance).trim().split('\n').at(-1)).toBe('Platform       http://127.0.0.1:4010');
		expect(instance.frames.join('\n')).not.toContain(newKey);
	});

	it('prints the new key once on r, alone on its own line above the screen, and never again', async () => {
		const instance = screen();
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => frame(instance).includes('press r to reveal it once'), {what: 'the success view'});
		expect(instance.frames.join('\n')).not.toContain(newKey);
		instance.stdin.write('r');
		await waitFor(() => frame(instance).includes('can not be shown again'), {what: 'the hint after the reveal'});
		const printed = instance.frames.join('\n');
		// The key is on a line of its own with no indentation or border around it.
		expect(printed.split('\n')).toContain(newKey);
		expect(frame(instance)).not.toContain(newKey);
		expect(frame(instance)).toContain('…WXYZ');
		await effectsFlushed();
		instance.stdin.write('r');
		instance.stdin.write('r');
		instance.stdin.write('q');
		// Keys are handled in order: once q has ended the screen, both r presses were handled.
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.frames.join('\n').split(newKey)).toHaveLength(2);
		expect(instance.results[0]?.kind).toBe('rotated');
		// The header printed once stays; the live lines are gone.
		await waitFor(() => !frame(instance).includes('API key rotated'), {what: 'the live area gone'});
		expect(frame(instance)).not.toContain('Enter or q to finish');
	});

	it('writes the result lines and a one-time reveal with the key alone on its line', () => {
		expect(revealLines(outcome()).at(-1)).toBe(newKey);
		const lines = screenResultLines(outcome(), fixedNow);
		expect(lines.join('\n')).not.toContain(newKey);
		expect(lines[0]).toBe('Rotated the API key …OLD1 → …WXYZ, stored in /tmp/platform-tui/config.json (mode 0600).');
		expect(lines[1]).toContain('1 h 30 min from now');
	});

	it('counts the overlap down', async () => {
		let nowMs = fixedNow.getTime();
		const instance = screen({now: () => new Date(nowMs)});
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => frame(instance).includes('1 h 30 min'), {what: 'the first countdown'});
		nowMs += 31 * 60_000;
		await waitFor(() => frame(instance).includes('59 min 00 s'), {what: 'the countdown to move on'});
		nowMs = Date.parse('2030-01-01T11:30:00.000Z');
		await waitFor(() => frame(instance).includes('the previous key no longer works'), {what: 'the end of the overlap'});
	});

	it('cancels on n without rotating', async () => {
		const instance = screen();
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('n');
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'cancelled'});
		expect(instance.calls()).toBe(0);
		// The command prints the one sentence (as an error, exit 1); the screen leaves only its header.
		expect(frame(instance)).not.toContain('Rotation cancelled');
		expect(frame(instance)).not.toContain('Rotate now?');
	});

	it('cancels on Esc and is interrupted by Ctrl+C, without rotating', async () => {
		const escaped = screen();
		await waitFor(() => frame(escaped).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		escaped.stdin.write('\u001B');
		await waitFor(() => escaped.results.length === 1, {what: 'the Esc result'});
		expect(escaped.results[0]).toEqual({kind: 'cancelled'});

		const interrupted = screen();
		await waitFor(() => frame(interrupted).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		interrupted.stdin.write('\u0003');
		await waitFor(() => interrupted.results.length === 1, {what: 'the Ctrl+C result'});
		expect(interrupted.results[0]).toEqual({kind: 'interrupted'});
		expect(escaped.calls() + interrupted.calls()).toBe(0);
	});

	it('reports a failure and hands the error back', async () => {
		const error = new KeyRotationError({kind: 'refused', maybeIssued: false, keyMasked: '…OLD1'}, 'The platform refused the current key …OLD1');
		const instance = screen({rotate: async () => Promise.reject(error)});
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'failed', error});
		expect(frame(instance)).toContain('The key was not rotated.');
	});

	it('keeps waiting for the answer on the first Ctrl+C while rotating', async () => {
		let resolve: (value: RotationOutcome) => void = () => undefined;
		const instance = screen({skipConfirm: true, rotate: async () => new Promise<RotationOutcome>(done => {
			resolve = done;
		})});
		await waitFor(() => frame(instance).includes('Asking the platform for a new key'), {what: 'the spinner'});
		await effectsFlushed();
		instance.stdin.write('\u0003');
		await waitFor(() => frame(instance).includes('press Ctrl+C again'), {what: 'the notice'});
		expect(instance.results).toEqual([]);
		resolve(outcome());
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'rotated', outcome: outcome()});
	});

	it('finishes at once when the key could not be stored, and the key is printed in full on its own line with a loud warning', async () => {
		const unsaved = outcome({stored: false, storeError: 'EACCES: permission denied'});
		const instance = screen({rotate: async () => Promise.resolve(unsaved)});
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'rotated', outcome: unsaved});
		const shown = unsavedKeyLines(unsaved).join('\n');
		expect(shown).toContain('NOT SAVED');
		expect(shown.split('\n')).toContain(newKey);
		expect(shown).toContain('EACCES: permission denied');
		expect(shown).toContain('platform-tui keys set');
	});

	it('warns that PLATFORM_API_KEY overrides the stored key and must be updated before the expiry', async () => {
		const instance = screen({rotate: async () => Promise.resolve(outcome({envOverride: true}))});
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => frame(instance).includes('API key rotated'), {what: 'the success view'});
		const shown = frame(instance);
		expect(shown).toContain('PLATFORM_API_KEY is set in the environment and overrides the stored key');
		expect(shown).toContain('before 2030-01-01 11:30:00 UTC');
	});

	it('says so when the answer had no valid expiry', async () => {
		const instance = screen({rotate: async () => Promise.resolve(outcome({expiresAt: undefined, malformedExpiry: 'tomorrow'}))});
		await waitFor(() => frame(instance).includes('Rotate now?'), {what: 'the confirmation'});
		await effectsFlushed();
		instance.stdin.write('y');
		await waitFor(() => frame(instance).includes('API key rotated'), {what: 'the success view'});
		expect(frame(instance)).toContain('expiry unknown');
		expect(frame(instance)).toContain('"tomorrow"');
	});
});

describe('KeyPrompt', () => {
	function prompt() {
		const results: KeyPromptResult[] = [];
		const instance = render(<KeyPrompt onDone={result => {
			results.push(result);
		}}/>);
		return Object.assign(instance, {results});
	}

	it('shows typed and pasted characters as bullets and submits on Enter', async () => {
		const instance = prompt();
		await waitFor(() => frame(instance).includes('API key:'), {what: 'the prompt'});
		await effectsFlushed();
		instance.stdin.write('sk_');
		await waitFor(() => frame(instance).includes('•••'), {what: 'three bullets'});
		await effectsFlushed();
		instance.stdin.write('pasted_secret_1234');
		await waitFor(() => frame(instance).includes('•'.repeat(21)), {what: 'the pasted characters'});
		await effectsFlushed();
		instance.stdin.write('\u007F');
		await waitFor(() => !frame(instance).includes('•'.repeat(21)), {what: 'a deleted character'});
		expect(frame(instance)).not.toContain('pasted_secret');
		instance.stdin.write('4');
		await waitFor(() => frame(instance).includes('•'.repeat(21)), {what: 'the character typed again'});
		await effectsFlushed();
		instance.stdin.write('\r');
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'submitted', key: 'sk_pasted_secret_1234'});
		expect(instance.frames.join('\n')).not.toContain('pasted_secret');
	});

	it('refuses an empty key and keeps asking', async () => {
		const instance = prompt();
		await waitFor(() => frame(instance).includes('API key:'), {what: 'the prompt'});
		await effectsFlushed();
		instance.stdin.write('\r');
		await waitFor(() => frame(instance).includes('A key is required'), {what: 'the error'});
		expect(instance.results).toEqual([]);
		instance.stdin.write('\u001B');
		await waitFor(() => instance.results.length === 1, {what: 'the result'});
		expect(instance.results[0]).toEqual({kind: 'cancelled'});
	});
});
