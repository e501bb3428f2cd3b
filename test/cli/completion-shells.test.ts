/**
 * The completion scripts loaded into the real shells: commands, subcommands, flags, files where a
 * command takes a path, and the ids of stored events for `events show` and `events replay`. The
 * scripts call `platform-tui` for event ids, so a `platform-tui` that runs the built CLI is on PATH.
 */
import {chmodSync, mkdirSync, mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {manifestPath} from '../../source/workflow/manifest.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {childEnv, cliPath, runCli} from '../support/cli.js';
import {bashComplete, fishComplete, shellSkipReason, startZsh, type Shell, type ZshSession} from '../support/shells.js';

const ids = ['evt_chosen00000000000000000000001', 'evt_user000000000000000000000001'] as const;
/** The one event of a second journal, named on the typed line with --data-dir. */
const otherId = 'evt_other00000000000000000000001';
/** A chat this machine synced: its upload manifest is in the data directory. */
const syncedChat = 'chat_synced0000000000000001';
const directory = mkdtempSync(path.join(tmpdir(), 'platform-tui-completion-'));
const dataDir = tempDataDir();
const otherDataDir = tempDataDir();
let env: NodeJS.ProcessEnv;
const scripts: Partial<Record<Shell, string>> = {};

beforeAll(async () => {
	const journal = await openJournal({directory: dataDir});
	await journal.accept(newEvent({id: ids[1], event: 'platform.chat.user-message.created', status: 'logged'}));
	await journal.accept(newEvent({id: ids[0], event: 'platform.chat.external-module.chosen', status: 'ignored'}));
	await journal.close();
	mkdirSync(path.dirname(manifestPath(dataDir, 'https://api.example.com', syncedChat)), {recursive: true});
	writeFileSync(manifestPath(dataDir, 'https://api.example.com', syncedChat), JSON.stringify({version: 1, baseUrl: 'https://api.example.com', chatId: syncedChat, updatedAt: '2026-11-28T02:50:00.000Z', files: {}}));
	const other = await openJournal({directory: otherDataDir});
	await other.accept(newEvent({id: otherId, status: 'ignored'}));
	await other.close();
	const bin = path.join(directory, 'bin');
	mkdirSync(bin);
	writeFileSync(path.join(bin, 'platform-tui'), `#!/bin/sh\nexec '${process.execPath}' '${cliPath}' "$@"\n`);
	chmodSync(path.join(bin, 'platform-tui'), 0o755);
	// A folder to complete as upload's argument.
	mkdirSync(path.join(directory, 'docs-folder'));
	// A config file with a second profile, for --profile and `config use`.
	const configDir = path.join(directory, 'platform-config');
	mkdirSync(configDir);
	writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({profiles: {staging: {}, local: {}}}));
	env = childEnv({PLATFORM_TUI_CONFIG_DIR: configDir, PATH: `${bin}:${process.env.PATH ?? ''}`, PLATFORM_TUI_DATA_DIR: dataDir, HOME: directory, XDG_CONFIG_HOME: path.join(directory, 'config'), XDG_DATA_HOME: path.join(directory, 'data')});
	for (const shell of ['bash', 'zsh', 'fish'] as const) {
		const result = await runCli(['completion', shell]);
		expect(result.code).toBe(0);
		scripts[shell] = path.join(directory, shell === 'zsh' ? '_platform-tui' : `platform-tui.${shell}`);
		writeFileSync(scripts[shell], result.stdout);
	}
});

/** What every shell must complete, as [typed line, words that must be offered, words that must not]. */
function cases(): Array<[string, string[], string[]]> {
	return [
		['platform-tui ev', ['events'], ['upload']],
		['platform-tui ', ['upload', 'chat', 'serve', 'trigger', 'events', 'keys', 'local', 'config', 'init', 'completion', 'version', 'help'], []],
		['platform-tui events ', ['list', 'show', 'export', 'replay'], ['upload']],
		['platform-tui keys r', ['rotate'], ['set', 'show']],
		['platform-tui --j', ['--json'], []],
		['platform-tui upload --keep', ['--keep-going'], []],
		['platform-tui events show --d', ['--data-dir', '--debug'], []],
		['platform-tui events show evt_', [...ids], [otherId]],
		['platform-tui events replay evt_u', [ids[1]], [ids[0]]],
		['platform-tui events export evt_', [...ids], [otherId]],
		['platform-tui trigger --from-event evt_', [...ids], [otherId]],
		[`platform-tui events show --data-dir ${otherDataDir} evt_`, [otherId], [...ids]],
		['platform-tui --profile st', ['staging'], ['local']],
		['platform-tui config use ', ['default', 'staging', 'local'], ['list']],
		['platform-tui local --save-profile lo', ['local'], ['staging']],
		[`platform-tui upload ${directory}/docs-f`, [`${directory}/docs-folder`], []],
		['platform-tui chat chat_s', [syncedChat], []],
		[`platform-tui upload ${directory} q --chat chat_`, [syncedChat], [...ids]],
		[`platform-tui check ${directory} --chat `, [syncedChat], [...ids]],
		// A flag's value is no command word: after --data-dir come paths, then the ids of that journal.
		[`platform-tui events show --data-dir ${directory}/docs-f`, [`${directory}/docs-folder`], ['list', 'show']],
		// A flag is offered by its own name, not its alias; after the alias, too, comes a path.
		['platform-tui keys rotate --d', ['--dotenv'], ['--env-file']],
		[`platform-tui keys rotate --env-file ${directory}/docs-f`, [`${directory}/docs-folder`], ['rotate', 'show']],
	];
}

function check(offered: string[], line: string, expected: string[], absent: string[]): void {
	// A folder may be offered with its trailing slash, and zsh offers a path's last part.
	const normalized = offered.map(word => word.replace(/\/$/, ''));
	for (const word of expected) {
		const found = normalized.some(offeredWord => offeredWord === word || (offeredWord.length > 0 && word.endsWith(`/${offeredWord}`)));
		expect(found, `"${line}" offers ${word} (offered: ${normalized.join(' ')})`).toBe(true);
	}

	for (const word of absent) {
		expect(normalized, `"${line}" does not offer ${word}`).not.toContain(word);
	}
}

describe.skipIf(shellSkipReason('fish') !== undefined)('fish completion (a real fish)', () => {
	for (const [line, expected, absent] of cases()) {
		it(`completes "${line.replace(/\/tmp\/\S+/g, '…')}"`, () => {
			check(fishComplete(scripts.fish ?? '', line, env), line, expected, absent);
		});
	}
});

describe.skipIf(shellSkipReason('bash') !== undefined)('bash completion (a real bash)', () => {
	for (const [line, expected, absent] of cases()) {
		it(`completes "${line.replace(/\/tmp\/\S+/g, '…')}"`, () => {
			check(bashComplete(scripts.bash ?? '', line, env), line, expected, absent);
		});
	}
});

describe.skipIf(shellSkipReason('zsh') !== undefined)('zsh completion (a real zsh with compinit)', () => {
	let zsh: ZshSession | undefined;
	beforeAll(async () => {
		zsh = await startZsh(scripts.zsh ?? '', directory, env);
	});

	afterAll(async () => {
		await zsh?.close();
	});

	for (const [line, expected, absent] of cases()) {
		it(`completes "${line.replace(/\/tmp\/\S+/g, '…')}"`, async () => {
			check(await zsh?.complete(line) ?? [], line, expected, absent);
		});
	}
});
