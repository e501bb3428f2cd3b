/**
 * Puts the API key into a dotenv file (`PLATFORM_API_KEY=<key>`), for deployments that read their
 * key from such a file (systemd's EnvironmentFile, docker's --env-file, dotenv). Every other line
 * is kept as it was; the file is replaced in one atomic rename and has mode 0600. The caller holds
 * the config file's lock, so two rotations never interleave their writes.
 */
import {randomBytes} from 'node:crypto';
import {constants} from 'node:fs';
import {access, chmod, open, readFile, rename, rm, stat} from 'node:fs/promises';
import {basename, dirname, join} from 'node:path';
import {errorCode} from '../format/value.js';

export const envFileMode = 0o600;

const keyLine = /^(\s*(?:export\s+)?)PLATFORM_API_KEY\s*=.*?(\r?)$/;

/**
 * The text of a dotenv file with every PLATFORM_API_KEY line set to `key` (an `export ` prefix and
 * a CRLF ending are kept), or the line added at the end when there is none.
 */
export function withApiKey(text: string, key: string): string {
	const lines = text === '' ? [] : text.split('\n');
	const endsWithNewline = text.endsWith('\n');
	if (endsWithNewline) {
		lines.pop();
	}

	const updated = lines.map(line => {
		const match = keyLine.exec(line);
		return match ? `${match[1] ?? ''}PLATFORM_API_KEY=${key}${match[2] ?? ''}` : line;
	});
	if (!lines.some(line => keyLine.test(line))) {
		const crlf = lines.length > 0 && lines.every(line => line.endsWith('\r'));
		updated.push(`PLATFORM_API_KEY=${key}${crlf ? '\r' : ''}`);
	}

	return `${updated.join('\n')}\n`;
}

/** The key a dotenv file holds now (the last PLATFORM_API_KEY line wins, as in dotenv and systemd). */
export function apiKeyOf(text: string): string | undefined {
	let key: string | undefined;
	for (const line of text.split('\n')) {
		const match = /^\s*(?:export\s+)?PLATFORM_API_KEY\s*=\s*(.*?)\s*$/.exec(line);
		if (match) {
			key = (match[1] ?? '').replace(/^(["'])(.*)\1$/, '$2');
		}
	}

	return key;
}

/**
 * Why the dotenv file at `path` could not be written now, before anything is rotated: its folder
 * missing (ENOENT), not a folder (ENOTDIR), or not writable, or the file itself not a file or not
 * readable and writable. Undefined when it can be.
 */
export async function envFileProblem(path: string): Promise<{code: string; path: string} | undefined> {
	const folder = dirname(path);
	const found = await stat(folder).catch((error: unknown) => errorCode(error) ?? 'EIO');
	if (typeof found === 'string') {
		return {code: found, path: folder};
	}

	if (!found.isDirectory()) {
		return {code: 'ENOTDIR', path: folder};
	}

	const file = await stat(path).catch(() => undefined);
	if (file?.isDirectory()) {
		return {code: 'EISDIR', path};
	}

	const refusal = async (target: string, mode: number) => access(target, mode).then(() => undefined, (error: unknown) => ({code: errorCode(error) ?? 'EIO', path: target}));
	// The new file is written beside it and renamed over it: the folder takes writes in every case.
	return (file === undefined ? undefined : await refusal(path, constants.R_OK | constants.W_OK))
		?? refusal(folder, constants.W_OK | constants.X_OK);
}

/** Writes `key` into the dotenv file at `path` (made when missing): temp file, fsync, rename, mode 0600. */
export async function writeEnvFileKey(path: string, key: string): Promise<void> {
	let text = '';
	try {
		text = await readFile(path, 'utf8');
	} catch (error) {
		if (errorCode(error) !== 'ENOENT') {
			throw error;
		}
	}

	const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
	const handle = await open(temporary, 'wx', envFileMode);
	try {
		await handle.writeFile(withApiKey(text, key), 'utf8');
		await handle.sync();
	} catch (error) {
		await handle.close();
		await rm(temporary, {force: true});
		throw error;
	}

	await handle.close();
	try {
		await chmod(temporary, envFileMode);
		await rename(temporary, path);
	} catch (error) {
		await rm(temporary, {force: true});
		throw error;
	}
}
