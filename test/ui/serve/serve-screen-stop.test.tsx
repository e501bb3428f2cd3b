import {describe, expect, it} from 'vitest';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';
import {accepted, at, flat, screenMounter} from './serve-screen-support.js';

describe('ServeScreen (the event log)', () => {
	const mount = screenMounter();

	const spinnerFrames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

	it('asks to stop on q or Ctrl+C, and to quit at once on the next press', async () => {
		const {instance, quits} = mount();
		await waitFor(() => flat(instance.lastFrame()).includes('q or Ctrl+C to stop'));
		await effectsFlushed();
		instance.stdin.write('q');
		await waitFor(() => quits().length === 1);
		instance.stdin.write('\u0003');
		await waitFor(() => quits().length === 2);
		expect(quits()).toEqual([false, true]);
	});

	it('shows the drain and the final counters', async () => {
		const {source, instance} = mount();
		source.state.processing = 2;
		source.emit({type: 'draining', at, jobs: 2, timeoutMs: 25_000});
		await waitFor(() => flat(instance.lastFrame()).includes('Stopping'));
		expect(flat(instance.lastFrame())).toContain('Stopping: no new events · waiting up to 25 s for 2 jobs… · Ctrl+C again quits at once');
		source.emit({type: 'stopped', at, cutOff: 1, leftWaiting: 0, counters: {received: 4, verified: 4, rejected: 0, duplicates: 0, processing: 0, answered: 1, failed: 1}});
		await waitFor(() => flat(instance.lastFrame()).includes('Stopped.'));
		expect(flat(instance.lastFrame())).toContain('answered 1 · failed 1');
		expect(flat(instance.lastFrame())).toContain('1 job cut off at the drain deadline');
	});

	it('leaves no spinner behind when a second Ctrl+C quits at once', async () => {
		const {source, instance, quits} = mount();
		source.emit(accepted({eventId: 'evt_spin', chatId: 'chat_spin', text: 'Hi'}));
		await waitFor(() => spinnerFrames.test(instance.lastFrame() ?? ''));
		await effectsFlushed();
		instance.stdin.write('\u0003');
		source.state.processing = 1;
		source.emit({type: 'draining', at, jobs: 1, timeoutMs: 25_000});
		await waitFor(() => flat(instance.lastFrame()).includes('Stopping'));
		instance.stdin.write('\u0003');
		await waitFor(() => quits().length === 2);
		expect(spinnerFrames.test(instance.lastFrame() ?? '')).toBe(false);
	});
});
