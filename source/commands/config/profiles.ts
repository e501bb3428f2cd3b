import {storedSetting, type ProfileList} from '../../config/store.js';
import {mask} from '../../config/settings.js';
import {formatCountdown} from '../../format/duration.js';
import {formatTable, tableWidth} from '../../format/table.js';
import {storedKeySetAt} from '../../keys/age.js';
import type {Command} from '../../cli/types.js';
import {noArguments} from '../../cli/define.js';

/** What `config profiles` tells of one profile; never a full key. */
export type ProfileRow = {name: string; active: boolean; baseUrl: string | undefined; key: string | undefined; keySetAt: string | undefined; keyAgeMs: number | undefined};

/** One row per profile of the file, the one this run uses marked active. */
export function profileRows(list: ProfileList, now: number): ProfileRow[] {
	return list.profiles.map(({name, config}) => {
		const key = storedSetting(config, 'apiKey');
		const setAt = key === undefined ? undefined : storedKeySetAt(config);
		return {
			name,
			active: name === list.selected.name,
			baseUrl: storedSetting(config, 'baseUrl'),
			key: key === undefined ? undefined : mask(key),
			keySetAt: setAt?.toISOString(),
			keyAgeMs: setAt === undefined ? undefined : Math.max(0, now - setAt.getTime()),
		};
	});
}

const sourceWords = {flag: '--profile', env: 'PLATFORM_PROFILE', stored: '`config use`', default: 'none chosen'} as const;

const command: Command<Record<string, never>> = {
	usage: 'platform-tui config profiles [--json]',
	description: 'List the profiles of the config file: the one in use marked *, its base URL, the last four characters of its key and the key\'s age',
	flags: {},
	examples: ['platform-tui config profiles', 'platform-tui config profiles --json'],
	parse(input) {
		noArguments(input, command);
		return {};
	},
	run(_options, deps) {
		const {stdout, stderr} = deps.context;
		const list = deps.store().profiles();
		const rows = profileRows(list, deps.clock.now());
		if (deps.output.json) {
			for (const row of rows) {
				deps.output.print({type: 'profile', name: row.name, active: row.active, baseUrl: row.baseUrl ?? null, key: row.key ?? null, keySetAt: row.keySetAt ?? null, keyAgeSeconds: row.keyAgeMs === undefined ? null : Math.floor(row.keyAgeMs / 1000)});
			}

			return Promise.resolve(0);
		}

		const width = tableWidth(stdout);
		const cells = rows.map(row => [row.active ? '*' : '', row.name, row.baseUrl ?? '-', row.key ?? '-', row.keyAgeMs === undefined ? '-' : formatCountdown(row.keyAgeMs)]);
		stdout.write(`${formatTable(['ACTIVE', 'PROFILE', 'BASE URL', 'KEY', 'KEY AGE'], cells, width).join('\n')}\n`);
		const {selected} = list;
		(width === undefined ? stderr : stdout).write(`${width === undefined ? '' : '\n'}Using profile ${selected.name} (${sourceWords[selected.source]}); switch with 'platform-tui config use NAME'.\n`);
		return Promise.resolve(0);
	},
};

export default command;
