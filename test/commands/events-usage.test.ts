/**
 * `events list`'s usage names the statuses --status accepts, every one of them and no other: the
 * list comes from the flag's declaration (the store's eventStatuses), not a copy of it.
 */
import {describe, expect, it} from 'vitest';
import list from '../../source/commands/events/list.js';
import {eventStatuses} from '../../source/receiver/store/backend.js';
import {runCommand} from '../support/run-command.js';

describe('events list usage', () => {
	it('names every status --status accepts', async () => {
		const named = /--status ([a-z|]+)\]/.exec(list.usage)?.[1]?.split('|');
		expect(named).toEqual([...eventStatuses]);
		for (const status of named ?? []) {
			const result = await runCommand(list, {flags: {status}, env: {PLATFORM_TUI_DATA_DIR: '/nonexistent/platform-tui-usage'}});
			// Accepted by the flag: what stops the run is the missing journal, not the status.
			expect(result.stderr).not.toMatch(/--status/);
		}
	});
});
