/** What the `events` commands share: where the events are (journal or Redis), opening it, near ids. */
import {maskUrl} from '../../format/secret.js';
import type {EventBackend} from '../../receiver/backend.js';
import {defaultDataDir, defaultMaxAgeMs, defaultMaxEntries, openJournal, type JournalMode} from '../../receiver/journal/index.js';
import {openBackend} from '../../receiver/open-backend.js';
import {nearIds} from '../../receiver/near.js';
import {UsageError} from '../validators.js';
import type {StoreOptions} from './store-flags.js';

export {parseStore, storeFlags, type StoreOptions} from './store-flags.js';

/** The one event id a command names, or the usage sentence. */
export function eventIdArgument(argv: readonly string[], usage: string): string {
	const id = argv[0]?.trim();
	if (!id) {
		throw new UsageError(`Name the event: ${usage}`);
	}

	if (argv.length > 1) {
		throw new UsageError(`Name one event only: ${usage}`);
	}

	return id;
}

export type OpenStore = {backend: EventBackend; where: string; directory: string};

/** Opens the events: Redis when a URL is given, else the journal (read or replay mode). */
export async function openStore(options: StoreOptions, mode: Exclude<JournalMode, 'serve'>, env: NodeJS.ProcessEnv): Promise<OpenStore> {
	if (options.redisUrl) {
		const where = `Redis ${maskUrl(options.redisUrl)}`;
		const backend = await openBackend({redisUrl: options.redisUrl, directory: '', maxAgeMs: defaultMaxAgeMs, maxEntries: defaultMaxEntries});
		return {backend, where, directory: where};
	}

	const directory = options.dataDir ?? defaultDataDir(env);
	return {backend: await openJournal({directory, mode}), where: `the journal in ${directory}`, directory};
}

/** Ids close to `id` among the newest stored events, for a "did you mean". */
export async function nearEventIds(backend: EventBackend, id: string): Promise<string[]> {
	const known = await backend.list({limit: 5000});
	return nearIds(id, known.map(event => event.id), 5);
}
