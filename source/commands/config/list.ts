import {existsSync} from 'node:fs';
import {formatTable, tableWidth} from '../../format/table.js';
import {mask, settingNames, settingSpecs} from '../../config/settings.js';
import type {Command} from '../../cli/types.js';
import {noArguments} from '../../cli/define.js';

const command: Command<Record<string, never>> = {
	usage: 'platform-tui config list [--json]',
	description: 'List every setting, its value (secrets masked) and where it comes from',
	flags: {},
	examples: ['platform-tui config list', 'platform-tui config list --json'],
	parse(input) {
		noArguments(input, command);

		return {};
	},
	run(_options, deps) {
		const {stdout} = deps.context;
		const resolved = deps.resolved();
		const rows = settingNames.map(name => {
			const setting = resolved[name];
			const spec = settingSpecs[name];
			const value = setting ? (spec.secret ? mask(setting.value) : setting.value) : undefined;
			return {name, value, source: setting?.source ?? 'not set', env: spec.env};
		});
		if (deps.output.json) {
			for (const row of rows) {
				deps.output.print({type: 'setting', ...row, value: row.value ?? null});
			}

			return Promise.resolve(0);
		}

		const width = tableWidth(stdout);
		const lines = formatTable(['SETTING', 'VALUE', 'SOURCE', 'ENV'], rows.map(row => [row.name, row.value ?? '-', row.source, row.env]), width);
		stdout.write(`${lines.join('\n')}\n`);
		// Where the file is, for a person: under the table on a terminal, on stderr when piped.
		const {path} = deps.store();
		const where = existsSync(path) ? `Stored in ${path}` : `No settings stored yet; ${path} is written by 'platform-tui config set' or 'platform-tui init'.`;
		(width === undefined ? deps.context.stderr : stdout).write(`${width === undefined ? '' : '\n'}${where}\n`);
		return Promise.resolve(0);
	},
};

export default command;
