/**
 * Folders others can reach (in-process): a data or config folder other users can read or write is
 * named once, with the `chmod` that fixes it, by `serve` (its warning record and line) and by the
 * `events` commands; `serve` refuses a data folder others can write unless
 * --allow-shared-data-dir; a data folder owned by another user, or reached through another user's
 * link, is refused in one sentence (as root the test makes them with chown). Also
 * `events export --output` refuses an existing file unless --force.
 */
import {chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createDeps} from '../../../source/cli/deps.js';
import {describeError, joinText} from '../../../source/cli/error-message.js';
import type {CommandContext} from '../../../source/cli/types.js';
import exportCommand from '../../../source/commands/events/export.js';
import listCommand from '../../../source/commands/events/list.js';
import serve from '../../../source/commands/serve/serve.js';
import {folderAccess, PrivateFolderError} from '../../../source/private-folder.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {checkWritable} from '../../../source/workflow/manifest.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {isRoot} from '../../support/root.js';
import {memoryStream, runCommand, testEnv} from '../../support/run-command.js';
import {waitFor} from '../../support/wait.js';
import {newEvent} from './helpers.js';

/** A user the tests run beside (nobody). */
const otherUid = 65_534;

let root: string;
let platform: TestPlatform;
let eventId: string;

/** A data folder with a journal holding one event, its mode set to `mode`. */
async function journalFolder(name: string, mode = 0o700): Promise<string> {
	const directory = path.join(root, name);
	mkdirSync(directory);
	const journal = await openJournal({directory, flushBeforeAck: false});
	const event = newEvent();
	eventId = event.id;
	await journal.accept(event);
	await journal.close();
	chmodSync(directory, mode);
	return directory;
}

function privateConfig(): string {
	return mkdtempSync(path.join(root, 'config-'));
}

/** Starts serve in-process (plain or --json); `stop` ends it and resolves with its exit code. */
function startServe(flags: Record<string, unknown>, env: Record<string, string | undefined>, json: boolean) {
	const stop = new AbortController();
	const stdin = memoryStream();
	stdin.end();
	const stdout = memoryStream();
	const stderr = memoryStream();
	const context: CommandContext = {argv: [], flags: {port: 0, ...flags, ...(json ? {json: true} : {})}, env: testEnv({...platform.env(), ...env}), json, debug: false, interactive: false, stdin, stdout, stderr, signal: stop.signal};
	const done = (async () => serve.run(serve.parse(context), createDeps(context)))();
	return {stdout: () => stdout.text(), stderr: () => stderr.text(), done, async stop() {
		stop.abort();
		return done;
	}};
}

beforeAll(async () => {
	root = mkdtempSync(path.join(tmpdir(), 'folders-'));
	platform = await startPlatform();
});

afterAll(async () => {
	await platform.close();
	rmSync(root, {recursive: true, force: true});
});

describe('folderAccess: how open a folder is, and whose', () => {
	it('a private folder or a missing one is fine; one others can enter, list or write is named with its mode', () => {
		const folder = mkdtempSync(path.join(root, 'modes-'));
		expect(folderAccess(folder, 'data')).toBeUndefined();
		expect(folderAccess(path.join(folder, 'not-yet'), 'data')).toBeUndefined();
		chmodSync(folder, 0o755);
		expect(folderAccess(folder, 'data')).toEqual({folder, role: 'data', mode: 0o755, read: true, write: false});
		chmodSync(folder, 0o733);
		expect(folderAccess(folder, 'config')).toEqual({folder, role: 'config', mode: 0o733, read: true, write: true});
	});

	it.runIf(isRoot)('refuses a folder another user owns, and a path through a link another user owns (root\'s own links pass)', () => {
		const theirs = mkdtempSync(path.join(root, 'theirs-'));
		chownSync(theirs, otherUid, otherUid);
		const refusal = (() => {
			try {
				folderAccess(path.join(theirs, '.'), 'data');
			} catch (error) {
				return error;
			}

			return undefined;
		})();
		expect(refusal).toBeInstanceOf(PrivateFolderError);
		expect(joinText(describeError(refusal))).toBe(`The data folder ${path.join(theirs, '.')} belongs to another user (uid ${otherUid}), who could read or change the event journal (what chat users typed) and upload manifests, so it was not used. Run this as the user that owns it, or choose a folder of your own (--data-dir DIR, PLATFORM_TUI_DATA_DIR or PLATFORM_TUI_CONFIG_DIR).`);

		const mine = mkdtempSync(path.join(root, 'mine-'));
		const link = path.join(root, 'their-link');
		symlinkSync(mine, link);
		// Root's (this test's) own link is followed to a folder of its own.
		expect(folderAccess(path.join(link, 'data'), 'data')).toBeUndefined();
		lchownSync(link, otherUid, otherUid);
		expect(() => folderAccess(path.join(link, 'data'), 'data')).toThrow(PrivateFolderError);
		try {
			folderAccess(path.join(link, 'data'), 'config');
		} catch (error) {
			expect(describeError(error).message).toBe(`The config folder ${path.join(link, 'data')} is reached through the link ${link}, which another user (uid ${otherUid}) owns and could point elsewhere, so it was not used.`);
		}

		// The upload's manifests are refused the same way, before anything is written.
		return expect(checkWritable(theirs, path.join(theirs, 'sync'))).rejects.toBeInstanceOf(PrivateFolderError);
	});
});

describe('events: one warning per folder others can reach', () => {
	it('events list names the data and the config folder with the chmod that fixes each, once; nothing for private ones', async () => {
		const dataDir = await journalFolder('events-shared', 0o750);
		const configDir = privateConfig();
		chmodSync(configDir, 0o755);
		const listed = await runCommand(listCommand, {flags: {dataDir}, env: {PLATFORM_TUI_CONFIG_DIR: configDir}});
		expect(listed.code, listed.stderr).toBe(0);
		const warnings = listed.stderr.split('\n').filter(line => line.startsWith('warning: '));
		expect(warnings).toEqual([
			`warning: Other users can read the data folder ${dataDir} (mode 0750), which holds the event journal (what chat users typed) and upload manifests; \`chmod 700 ${dataDir}\` makes it private.`,
			`warning: Other users can read the config folder ${configDir} (mode 0755), which holds the settings and the API key; \`chmod 700 ${configDir}\` makes it private.`,
		]);

		chmodSync(dataDir, 0o700);
		chmodSync(configDir, 0o700);
		const quiet = await runCommand(listCommand, {flags: {dataDir}, env: {PLATFORM_TUI_CONFIG_DIR: configDir}});
		expect(quiet.stderr).not.toContain('warning');
	});

	it.runIf(isRoot)('events list refuses a data folder another user owns in one sentence', async () => {
		const dataDir = await journalFolder('events-theirs');
		chownSync(dataDir, otherUid, otherUid);
		const refused = await runCommand(listCommand, {flags: {dataDir}, env: {PLATFORM_TUI_CONFIG_DIR: privateConfig()}});
		expect(refused.code).toBe(1);
		expect(refused.stderr.trim().split('\n')).toEqual([`Error: The data folder ${dataDir} belongs to another user (uid ${otherUid}), who could read or change the event journal (what chat users typed) and upload manifests, so it was not used. Run this as the user that owns it, or choose a folder of your own (--data-dir DIR, PLATFORM_TUI_DATA_DIR or PLATFORM_TUI_CONFIG_DIR).`]);
	});
});

describe('serve: the warning, and the refusal of a data folder others can write', () => {
	it('--json: a warning record with the folder and the chmod; plain: a warning line', async () => {
		const dataDir = await journalFolder('serve-shared', 0o755);
		const env = {PLATFORM_TUI_CONFIG_DIR: privateConfig()};
		const json = startServe({dataDir}, env, true);
		await waitFor(() => json.stdout(), {until: text => text.includes('"listening"') || json.stderr() !== '', what: 'serve to listen'});
		expect(await json.stop()).toBe(0);
		const records = json.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
		expect(records.filter(record => record.type === 'warning')).toEqual([{type: 'warning', at: expect.any(String) as string, code: 'data-dir-shared', message: `Other users can read the data folder ${dataDir} (mode 0755), which holds the event journal (what chat users typed) and upload manifests; \`chmod 700 ${dataDir}\` makes it private.`}]);

		const plain = startServe({dataDir}, env, false);
		await waitFor(() => plain.stderr(), {until: text => text.includes('Listening on'), what: 'serve to listen'});
		expect(await plain.stop()).toBe(0);
		expect(plain.stderr().split('\n').filter(line => line.includes('warning: '))).toEqual([expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  warning: Other users can read the data folder ${dataDir} \\(mode 0755\\)`)) as string]);
	});

	it('refuses a data folder others can write unless --allow-shared-data-dir, which runs and warns', async () => {
		const dataDir = path.join(root, 'serve-writable');
		mkdirSync(dataDir);
		chmodSync(dataDir, 0o777);
		const env = {PLATFORM_TUI_CONFIG_DIR: privateConfig()};
		// Started as the allowed one is, so a serve that wrongly starts is stopped rather than left running.
		const refused = startServe({dataDir}, env, true);
		let ended: {error: unknown} | undefined;
		refused.done.then(() => {
			ended = {error: undefined};
		}, (error: unknown) => {
			ended = {error};
		});
		await waitFor(() => refused.stdout(), {until: text => text.includes('"listening"') || ended !== undefined, what: 'serve to refuse'});
		if (ended === undefined) {
			await refused.stop();
		}

		expect(joinText(describeError(ended?.error))).toBe(`Other users can write the data folder ${dataDir} (mode 0777), so they could change or replace the event journal; serve did not start. Run \`chmod 700 ${dataDir}\`, or pass --allow-shared-data-dir to run anyway.`);
		// Nothing was made in it.
		expect(() => statSync(path.join(dataDir, 'journal'))).toThrow();

		const allowed = startServe({dataDir, allowSharedDataDir: true}, env, true);
		await waitFor(() => allowed.stdout(), {until: text => text.includes('"listening"') || allowed.stderr() !== '', what: 'serve to listen'});
		expect(await allowed.stop()).toBe(0);
		// Written with the listening record, before any event.
		const warning = allowed.stdout().split('\n').find(line => line.includes('"warning"'));
		expect(JSON.parse(warning ?? '{}')).toMatchObject({code: 'data-dir-shared', message: expect.stringContaining(`Other users can read and write the data folder ${dataDir} (mode 0777)`) as string});
	});
});

describe('events export --output: a new file, or --force', () => {
	it('refuses an existing file in one sentence and leaves it; --force replaces it as a private file', async () => {
		const dataDir = await journalFolder('export');
		const file = path.join(root, 'kept.json');
		writeFileSync(file, 'mine\n', {mode: 0o644});
		const refused = await runCommand(exportCommand, {argv: [eventId], flags: {dataDir, output: file}});
		expect(refused.code).toBe(1);
		expect(refused.stderr).toBe(`Error: ${file} already exists, so the body of ${eventId} was not written; choose another --output, or pass --force to replace it.\n`);
		expect(readFileSync(file, 'utf8')).toBe('mine\n');

		const forced = await runCommand(exportCommand, {argv: [eventId], flags: {dataDir, output: file, force: true}});
		expect(forced.code, forced.stderr).toBe(0);
		expect(readFileSync(file, 'utf8')).toContain(eventId);
		expect(statSync(file).mode & 0o777).toBe(0o600);

		const alone = await runCommand(exportCommand, {argv: [eventId], flags: {dataDir, force: true}});
		expect(alone).toMatchObject({code: 1, stdout: '', stderr: '--force replaces the file --output names, so it needs --output FILE (without it the body goes to stdout).\n'});
	});
});
