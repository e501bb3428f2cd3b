/**
 * The inspector says a warning it opened with (a data or config folder other users can reach) in
 * its footer, until the first key's own notice replaces it.
 */
import {rmSync} from 'node:fs';
import {render} from 'ink-testing-library';
import {afterAll, describe, expect, it} from 'vitest';
import {JournalBackend, openJournal} from '../../../source/receiver/journal/index.js';
import {InspectorScreen} from '../../../source/ui/events/InspectorScreen.js';
import {newEvent, tempDataDir} from '../../receiver/journal/helpers.js';
import {waitFor} from '../../support/wait.js';

const directory = tempDataDir();

afterAll(() => {
	rmSync(directory, {recursive: true, force: true});
});

describe('the inspector\'s opening notice', () => {
	it('shows the warning in the footer', async () => {
		const writer = await openJournal({directory, flushBeforeAck: false});
		const event = newEvent();
		await writer.accept(event);
		await writer.close();
		const backend = await openJournal({directory, mode: 'read', verify: false});
		if (!(backend instanceof JournalBackend)) {
			throw new TypeError('expected the journal');
		}

		const notice = `Other users can read the data folder ${directory} (mode 0755); \`chmod 700 ${directory}\` makes it private.`;
		const instance = render(
			<InspectorScreen
				read={query => backend.readPage(query)}
				get={async id => backend.get(id)}
				where="the journal"
				notice={notice}
				actions={{replay: async () => Promise.resolve(''), edit: async () => Promise.resolve(''), copy: id => id}}
				colour={false}
				pollMs={3_600_000}
				onQuit={() => undefined}
			/>,
		);
		try {
			const frame = await waitFor(() => instance.lastFrame() ?? '', {until: text => text.includes(event.id)});
			expect(frame.replaceAll(/\s+/g, ' ')).toContain(notice);
		} finally {
			instance.unmount();
			await backend.close();
		}
	});
});
