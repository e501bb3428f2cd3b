import {existsSync} from 'node:fs';
import {formatTable, tableWidth, type TableFit} from '../../format/table.js';
import {cutMiddle} from '../../format/width.js';
import {mask, settingNames, settingSpecs} from '../../config/settings.js';
import type {Command} from '../../cli/types.js';
import {noArguments} from '../../cli/define.js';

/**
 * The values get the width first: on a narrow terminal ENV is cut (to 12 columns) and then left
 * out, SOURCE is cut, and only then a value, in its middle, keeping its start and end (ids, URLs).
 */
const settingsFit: TableFit = {whole: [0], minimum: {1: 12, 3: 12}, dropOrder: [3], cutLast: [2, 1], cut: {1: cutMiddle}};

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
		const lines = formatTable(['SETTING', 'VALUE', 'SOURCE', 'ENV'], rows.map(row => [row.name, row.value ?? '-', row.source, row.env]), width, settingsFit);
		stdout.write(`${lines.join('\n')}\n`);
		// Where the file is, for a person: under the table on a terminal, on stderr when piped.
		const {path} = deps.store();
		const where = existsSync(path) ? `Stored in ${path}` : `No settings stored yet; ${path} is written by 'platform-tui config set' or 'platform-tui init'.`;
		(width === undefined ? deps.context.stderr : stdout).write(`${width === undefined ? '' : '\n'}${where}\n`);
		return Promise.resolve(0);
	},
};

export default command;
