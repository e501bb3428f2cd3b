/** What the `events` commands share: where the events are (journal or Redis), opening it, near ids. */
import {existsSync} from 'node:fs';
import path from 'node:path';
import {maskUrl} from '../../format/secret.js';
import type {EventBackend, StoredEvent} from '../../receiver/store/backend.js';
import {journalError} from '../../receiver/journal/errors.js';
import {identityFile} from '../../receiver/journal/open/integrity.js';
import {journalDirectory} from '../../receiver/journal/open/location.js';
import type {JournalMode} from '../../receiver/journal/index.js';
import {defaultDataDir, openBackend} from '../../receiver/store/open-backend.js';
import type {CommandInput} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';
import {sharedFolderWarning} from '../../cli/messages/privacy.js';
import {configFilePath} from '../../config/file.js';
import {privateFolders} from '../../private-folder.js';
import {parseStore, type StoreOptions} from './store-flags.js';

export {parseStore, storeFlags, type StoreOptions} from './store-flags.js';

/** The one event id a command names, or the usage sentence. */
export function eventIdArgument(argv: readonly string[], usage: string): string {
	const id = argv[0]?.trim();
	if (!id) {
		throw new UsageError('argument-missing', `Name the event: ${usage}`);
	}

	if (argv.length > 1) {
		throw new UsageError('too-many-arguments', `Name one event only: ${usage}`);
	}

	return id;
}

/** The options of a command that names one stored event (`events show`, `events replay`). */
export type EventIdOptions = StoreOptions & {id: string};

/** The `parse` of such a command: where the events are and the one `<id>`. */
export function parseEventId(usage: string): (input: CommandInput) => EventIdOptions {
	return ({argv, flags, env}) => ({...parseStore(flags, env), id: eventIdArgument(argv, usage)});
}

export type OpenStore = {backend: EventBackend; where: string; directory: string};

/** How an `events` command says a warning: one line on stderr (the inspector shows it in its footer instead). */
export function stderrWarning(stderr: NodeJS.WritableStream): (text: string) => void {
	return text => {
		stderr.write(`warning: ${text}\n`);
	};
}

/**
 * The warnings about the data folder and the config folder when other users can reach them (the
 * data folder of another user, or reached through another user's link, is refused).
 */
export function folderWarnings(directory: string, env: NodeJS.ProcessEnv): string[] {
	return privateFolders([{folder: directory, role: 'data'}, {folder: path.dirname(configFilePath(env)), role: 'config'}], {allowSharedData: true}).map(found => sharedFolderWarning(found));
}

/**
 * Opens the events: Redis when a URL is given, else the journal (read or replay mode). The data
 * and config folders are checked first (another user's is refused); once the journal is open,
 * `warn` hears once about each that other users can reach.
 */
export async function openStore(options: StoreOptions, mode: Exclude<JournalMode, 'serve'>, env: NodeJS.ProcessEnv, open: {verify?: boolean; warn?: (text: string) => void} = {}): Promise<OpenStore> {
	if (options.redisUrl) {
		const where = `Redis ${maskUrl(options.redisUrl)}`;
		return {backend: await openBackend({redisUrl: options.redisUrl, directory: ''}), where, directory: where};
	}

	const directory = options.dataDir ?? defaultDataDir(env);
	const warnings = folderWarnings(directory, env);
	// A directory without a journal is most often a mistyped --data-dir: say so, rather than list nothing.
	// (A journal whose file was lost, its identity record left, is refused as damaged when opened.)
	const folder = journalDirectory(directory);
	if (!existsSync(path.join(folder, 'data.mdb')) && !existsSync(identityFile(folder))) {
		throw journalError('journal-missing', {directory}, `no event journal in ${directory}`);
	}

	const backend = await openBackend({directory, mode, ...(open.verify === false ? {verify: false} : {})});
	for (const warning of warnings) {
		open.warn?.(warning);
	}

	return {backend, where: `the journal in ${directory}`, directory};
}

/** The refusal of an id that is not stored, with the ids close to it. */
export function unknownEvent(id: string, near: string[], directory: string) {
	return journalError('journal-event-unknown', {id, near, directory}, `no event ${id} in ${directory}`);
}

/** How many of the events an ambiguous id prefix names are listed. */
const candidatesShown = 10;

/**
 * The whole id `id` names: itself when stored, else the one stored id it is the start of. An id
 * that starts several is refused with them listed; one that starts none, with the ids close to it.
 */
export async function resolveEventId(backend: EventBackend, id: string, directory: string): Promise<string> {
	if (await backend.get(id)) {
		return id;
	}

	const matches = await backend.withPrefix?.(id, candidatesShown + 1) ?? [];
	if (matches.length === 1) {
		return matches[0] ?? id;
	}

	if (matches.length > 1) {
		const candidates = matches.slice(0, candidatesShown);
		throw journalError('journal-event-ambiguous', {prefix: id, candidates, more: matches.length > candidatesShown, directory}, `${id} is the start of ${matches.length > candidatesShown ? 'many' : matches.length} events in ${directory}`);
	}

	throw unknownEvent(id, await backend.near(id), directory);
}

/** The stored event `id` (or a unique start of its id) names, or the refusal. */
export async function storedEvent(backend: EventBackend, id: string, directory: string): Promise<StoredEvent> {
	const whole = await resolveEventId(backend, id, directory);
	const event = await backend.get(whole);
	if (!event) {
		throw unknownEvent(id, await backend.near(id), directory);
	}

	return event;
}
