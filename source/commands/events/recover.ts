/**
 * `platform-tui events recover`: copies every readable event of a damaged journal (with its steps
 * and state) and its exactly-once ids into a fresh journal, keeping the damaged one beside it.
 * Exit 0 when something was recovered, 1 when nothing could be read.
 */
import {plural} from '../../format/text.js';
import {defaultDataDir} from '../../receiver/store/open-backend.js';
import {recoverJournal, type RecoverResult} from '../../receiver/journal/recovery/recover.js';
import type {Command} from '../../cli/types.js';
import {folderWarnings, parseStore, stderrWarning, storeFlags, type StoreOptions} from './shared.js';

export type RecoverOptions = StoreOptions;

/** Ids are listed when there are at most this many. */
const fewIds = 10;

function idList(ids: string[]): string {
	return ids.length <= fewIds ? `: ${ids.join(', ')}` : '';
}

function lines(result: RecoverResult): string[] {
	const out = [`Recovered ${result.events} of ${plural(result.known, 'event')} and ${plural(result.ids, 'event id')} from ${result.file} into a fresh journal in ${result.journal}.`];
	if (result.newMetaPages) {
		out.push('Its meta pages were lost: it was read through new ones written into a copy.');
	}

	if (result.scanned.events > 0 || result.scanned.ids > 0) {
		out.push(`LMDB could not read it to its end; ${result.scanned.events} of those ${plural(result.events, 'event')} and ${result.scanned.ids} of the ${plural(result.ids, 'id')} were read from its pages directly.`);
	}

	if (result.unreadable.length > 0) {
		out.push(`Could not read ${plural(result.unreadable.length, 'event')}${idList(result.unreadable)}: their records are gone, their ids are kept, so redeliveries are still taken as duplicates.`);
	}

	if (result.damaged.length > 0) {
		out.push(`Skipped ${plural(result.damaged.length, 'event')} whose record is damaged (it fails its checksum)${idList(result.damaged)}; their ids are kept.`);
	}

	if (result.withoutSteps.length > 0) {
		out.push(`Copied ${plural(result.withoutSteps.length, 'event')} without steps (they could not be read)${idList(result.withoutSteps)}.`);
	}

	if (result.failures.length > 0) {
		out.push(`Damage met while reading: ${[...new Set(result.failures)].join('; ')}; events in a damaged region that no index names cannot be counted.`);
	} else if (result.unreadable.length === 0 && result.damaged.length === 0) {
		out.push('Every event could be read.');
	}

	out.push(`The old journal is kept in ${result.kept}; remove it once you no longer need it.`);
	return out;
}

const command: Command<RecoverOptions> = {
	usage: 'platform-tui events recover [--json] [--data-dir DIR]',
	description: 'Read a damaged event journal (in child processes, so damage cannot crash this one) and copy every readable event, with its steps and state, and every known event id into a fresh journal; the old journal folder is kept beside it as journal.damaged-<time>. A whole journal is left as it is. Refused while serve or events replay has the journal open.',
	flags: {dataDir: storeFlags.dataDir},
	examples: ['platform-tui events recover', 'platform-tui events recover --data-dir /var/lib/platform-tui --json'],
	parse({flags, env}) {
		const store = parseStore(flags, env);
		return store.dataDir ? {dataDir: store.dataDir} : {};
	},
	async run(options, deps) {
		const directory = options.dataDir ?? defaultDataDir(deps.context.env);
		const warnings = folderWarnings(directory, deps.context.env);
		const result = await recoverJournal(directory);
		warnings.forEach(stderrWarning(deps.context.stderr));
		if (result.whole) {
			deps.output.print(
				{type: 'nothing-to-recover', file: result.file, journal: result.journal, events: result.events, ids: result.ids},
				`Nothing to recover: all ${plural(result.events, 'event')} in ${result.file} read whole, none fails its checksum, and it takes writes; nothing was changed.\n`,
			);
		} else {
			deps.output.print(
				{type: 'recovered', file: result.file, journal: result.journal, kept: result.kept, events: result.events, known: result.known, ids: result.ids, unreadable: result.unreadable, damaged: result.damaged, withoutSteps: result.withoutSteps, failures: result.failures, newMetaPages: result.newMetaPages, scanned: result.scanned},
				() => `${lines(result).join('\n')}\n`,
			);
		}

		return 0;
	},
};

export default command;
