/**
 * The serve screen in a real terminal (util-linux `script`) at 80×24 and 60×15, read through a
 * test terminal (screen and scrollback): an event resumed at start-up gets a row and counts; a
 * failed replay counts one failed event; r on an event that did not fail says why; no `replaying`
 * line is left behind; a running row shows its step; every figure and key hint of the status box
 * shows whole; the details' last line never cuts an id; no spacer row at 60×15. Everything waits
 * on what the screen shows, never on a time.
 */
import {describe, expect, it} from 'vitest';
import {buildTestEvent} from '../../../source/receiver/intake/test-event.js';
import {startCli} from '../../support/cli.js';
import {runInPty} from '../../support/pty.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {chosenEvent, deliver, env, has, listeningPort, model, platform, screenShows, serveScreenPlatform} from './pty-support.js';

serveScreenPlatform();

/** Leaves an event unfinished in `dataDir`: a serve is killed while the model holds its answer. */
async function leaveUnfinished(dataDir: string): Promise<string> {
	const event = await chosenEvent('Resume me');
	model.mode = 'hold';
	const first = startCli(['serve', '--port', '0', '--json', '--data-dir', dataDir], {env: env()});
	try {
		await waitFor(() => first.stdout().includes('"listening"') || first.child.exitCode !== null, {what: 'the first serve to listen'});
		const port = await listeningPort(() => first.stdout());
		await deliver(port, event);
		await waitFor(() => model.active > 0, {what: 'the held completion'});
	} finally {
		first.child.kill('SIGKILL');
		await first.closed;
	}

	return event.id;
}

describe('serve screen in a terminal', () => {
	it.each([
		{columns: 80, rows: 24},
		{columns: 60, rows: 15},
	])('at $columns×$rows: rows, counters, notices, status box and details all fit and agree', async ({columns, rows}) => {
		const dataDir = tempDataDir();
		const resumedId = await leaveUnfinished(dataDir);
		const failing = await chosenEvent('Fail me');
		const running = await chosenEvent('Hold me');
		model.mode = 'ok';
		const session = runInPty(['serve', '--port', '0', '--data-dir', dataDir], {env: env(), columns, rows, before: 'printed before serve started'});
		try {
			const port = await listeningPort(() => session.output());
			// The event resumed at start-up has a row and is counted.
			await screenShows(session, has('answered 1'), 'the resumed event counted');
			const text = () => session.terminal().text();
			await waitFor(() => text().some(line => /---\s+resumed\b.*answered in/.test(line)), {what: `the resumed row for ${resumedId}`});

			// A chosen event fails; r on a user message (it did not fail) says why nothing happened.
			// A model failing with a 5xx is transient (the answer would wait and retry): the platform
			// answers the completion with a body the spec does not allow, a permanent failure.
			platform.setFaults({rules: [{operation: 'chatCompletion', kind: 'empty-200'}]});
			await deliver(port, failing);
			await screenShows(session, has('failed 1'), 'the failure counted');
			const message = buildTestEvent('user-message', {text: 'Just saying hi', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, message);
			await waitFor(() => text().some(line => line.includes('logged')), {what: 'the logged message row'});
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith('› ') && line.includes('logged')), 'the message selected');
			session.write('r');
			const notice = await screenShows(session, screen => screen.join(' ').includes('did not fail'), 'why nothing was replayed');
			expect(notice.join(' ').replaceAll(/\s+/g, ' ')).toContain(`not replayed: ${message.id} did not fail`);

			// The failed event, replayed, fails again: one failed event, and the replay has its own row.
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith('› ') && line.includes('failed')), 'the failed row selected');
			session.write('r');
			await waitFor(() => text().some(line => /---\s+replay\b.*failed/.test(line)), {what: 'the replay row'});
			// The replay's notice goes once the replay has finished (the frame after its row, on a loaded
			// machine a moment later than the row itself).
			const afterReplay = await screenShows(session, screen => screen.join(' ').includes('processing 0') && !/replay(?:ing|ed) evt_/.test(screen.join(' ')), 'the replay finished and its notice gone');
			expect(afterReplay.join(' ')).toContain('failed 1');
			expect(afterReplay.join(' ')).not.toContain('failed 2');
			expect(afterReplay.join(' ')).not.toMatch(/replay(?:ing|ed) evt_/);

			// A running job shows its step, whole.
			platform.setFaults({rules: []});
			model.mode = 'hold';
			session.write('\u001B');
			await deliver(port, running);
			const live = await screenShows(session, screen => screen.some(line => /generating \(\d+ documents? found\)/.test(line)), 'the running row with its step');
			for (const line of live) {
				expect(Array.from(line).length).toBeLessThanOrEqual(columns);
			}

			// Every figure and key hint of the box is whole on the screen.
			const box = live.slice(live.findIndex(line => line.startsWith('╭'))).join(' ');
			for (const item of ['received 3', 'verified 3', 'rejected 0', 'duplicates 0', 'processing 1', 'answered 1', 'failed 1', '↑/↓ select', 'Enter details', 'r replay failed', 'q or Ctrl+C to stop', 'running jobs get 25 s to finish', `key …${platform.apiKey.slice(-4)}`, '1 endpoint secret']) {
				expect(box).toContain(item);
			}

			// The blank spacer above the box is there only when the terminal has room for it.
			const top = live.findIndex(line => line.startsWith('╭'));
			expect(live[top - 1]?.trim() === '').toBe(rows >= 20);

			// The details of the failed event: their last line names the whole id, or no id.
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith('› ')), 'a row selected');
			session.write('\r');
			const details = await screenShows(session, screen => screen.some(line => line.includes('more lines')), 'the cut details');
			const hint = details.find(line => line.includes('more lines')) ?? '';
			const ids = hint.match(/evt_\w+/g) ?? [];
			for (const id of ids) {
				expect(id).toBe(failing.id);
			}

			session.write('q');
			await screenShows(session, has('Stopping'), 'the drain');
			// A second q cuts the drain short: the one shutdown path still runs (no process.exit), names
			// the job left for the next serve, and exits 130.
			session.write('q');
			const {code} = await session.exit();
			expect(code).toBe(130);
			// The terminal wraps the sentence at its width, so it is compared without spaces.
			const squeezed = (text: string) => text.replaceAll(/\s+/g, '');
			expect(squeezed(session.terminal().text().join(''))).toContain(squeezed('Quit without waiting: 1 job left unfinished; the next serve on this data directory resumes them.'));
			expect(session.terminal().text()[0]).toBe('printed before serve started');
			expect(session.terminal().clears).toBe(0);
		} finally {
			session.kill('SIGKILL');
			model.mode = 'ok';
		}
	});
});
