/** The serve screen's keys in a real terminal at 80×24: / searches the rows, ? shows the help, p pauses, y copies an id (OSC 52) and e replays an edited copy. */
import {describe, expect, it} from 'vitest';
import {buildTestEvent} from '../../../source/receiver/intake/test-event.js';
import {startCli} from '../../support/cli.js';
import {runInPty} from '../../support/pty.js';
import {tempDataDir} from '../../receiver/journal/helpers.js';
import {chosenEvent, deliver, env, has, listeningPort, platform, screenShows, serveScreenPlatform} from './pty-support.js';

serveScreenPlatform();

describe('serve screen in a terminal', () => {
	it('at 80×24, / ? p y and e (a scripted $EDITOR) act on the rows', async () => {
		const dataDir = tempDataDir();
		const editor = 'sed -i s/Edit/Edited/';
		const session = runInPty(['serve', '--port', '0', '--data-dir', dataDir], {env: {...env(), EDITOR: editor, VISUAL: undefined}, columns: 80, rows: 24});
		try {
			const port = await listeningPort(() => session.output());
			await screenShows(session, has('? help'), 'the screen');
			const first = await chosenEvent('Edit me please');
			await deliver(port, first);
			const other = buildTestEvent('user-message', {text: 'Unrelated', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			await deliver(port, other);
			await screenShows(session, screen => screen.some(line => line.includes('answered 1')), 'the answer');
			session.write('/');
			await screenShows(session, has('Enter search · Esc cancel'), 'the search line');
			session.write('please');
			await screenShows(session, has('/please'), 'the typed search');
			session.write('\r');
			await screenShows(session, has('search "please": 1 of 2 rows match'), 'the match count');
			session.write('\u001B[A');
			await screenShows(session, screen => screen.some(line => line.startsWith(`› ${first.id} · `)), 'the selected match');
			session.write('y');
			await screenShows(session, screen => screen.join(' ').includes('sent to the clipboard with OSC 52'), 'the copy notice');
			expect(session.output()).toContain(`\u001B]52;c;${Buffer.from(first.id).toString('base64')}\u0007`);
			session.write('?');
			await screenShows(session, has('Any key closes this help.'), 'the help');
			session.write('x');
			await screenShows(session, screen => !screen.some(line => line.includes('Any key closes')), 'the help closed');
			session.write('p');
			await screenShows(session, has('paused: 0 finished rows held (p resumes)'), 'paused');
			session.write('p');
			await screenShows(session, screen => !screen.some(line => line.includes('paused:')), 'resumed');
			session.write('e');
			const edited = await screenShows(session, has('Stored the edited copy'), 'the edited replay');
			expect(edited.join(' ')).toMatch(/replayed it: answered/);
			const copy = /as (evt_\S+) and replayed/.exec(edited.join(' ').replace(/\s+/g, ' '))?.[1] ?? '';
			expect(copy).not.toBe('');
			session.write('q');
			await session.exit();
			const show = startCli(['events', 'show', copy, '--json', '--data-dir', dataDir], {env: env()});
			await show.closed;
			expect(show.stdout()).toContain('Edited me please');
			expect(show.stdout()).toContain(first.id);
		} finally {
			session.kill('SIGKILL');
		}
	});
});
