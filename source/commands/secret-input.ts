/**
 * Where a command reads a secret it needs (the endpoint secret of `trigger` and `local`): never
 * from the command line, where it would stay in shell history and show in the process list, but
 * from `--secret-file PATH` (`-` reads standard input) or the environment.
 */
import {readFile} from 'node:fs/promises';
import {text} from 'node:stream/consumers';
import {UserError} from '../errors.js';
import {errorCode} from '../format/value.js';
import {kebab} from '../cli/kebab.js';
import type {CommandContext, FlagSpec} from '../cli/types.js';
import {stringFlag, UsageError} from '../cli/validators.js';

export const secretFileFlag = {
	secretFile: {type: 'string', description: 'Read the endpoint secret from this file (- reads standard input) instead of PLATFORM_ENDPOINT_SECRET', placeholder: 'PATH'},
} satisfies Record<string, FlagSpec>;

/** A flag that once took the secret itself: kept hidden, so using it gets this refusal rather than "unknown flag". */
export const retiredSecretFlag: FlagSpec = {type: 'string'};

/** Refuses a secret given on the command line, naming the ways that keep it out of shell history. */
export function refuseSecretOnCommandLine(flags: Record<string, unknown>, flag: string): void {
	if (flags[flag] !== undefined) {
		const name = kebab(flag);
		throw new UsageError('secret-on-command-line', `--${name} is not taken: a secret on the command line stays in shell history and shows in the process list; set PLATFORM_ENDPOINT_SECRET, or pass --secret-file PATH (--secret-file - reads standard input)`);
	}
}

/** The `--secret-file` path, when given. */
export function secretFilePath(flags: Record<string, unknown>): string | undefined {
	return stringFlag(flags, 'secretFile');
}

/** The first secret of a comma-separated list (PLATFORM_ENDPOINT_SECRET may hold several). */
export function firstSecret(list: string | undefined): string | undefined {
	return list?.split(',').map(part => part.trim()).find(part => part !== '');
}

/** Reads the secret from the file (or stdin for `-`); an empty or unreadable one is one sentence. */
export async function readSecretFile(path: string, context: Pick<CommandContext, 'stdin'>): Promise<string> {
	let content: string;
	if (path === '-') {
		if (context.stdin.isTTY) {
			throw new UsageError('stdin-not-piped', '--secret-file - reads the secret from a pipe; try `printf %s "$SECRET" | platform-tui … --secret-file -`');
		}

		content = await text(context.stdin);
	} else {
		try {
			content = await readFile(path, 'utf8');
		} catch (error) {
			throw new UserError('secret-file-unreadable', `Cannot read the secret file ${path} (${errorCode(error) ?? 'unreadable'})`, {cause: error});
		}
	}

	const secret = firstSecret(content.trim());
	if (!secret) {
		throw new UserError('secret-empty', `${path === '-' ? 'Standard input' : `The secret file ${path}`} holds no secret`);
	}

	return secret;
}
