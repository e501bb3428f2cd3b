/** `platform-tui events replay <id>`: processes a stored chosen-module event again, with new logs and answer. */
import {defaultModel} from '../../config/settings.js';
import {formatMs} from '../../format/duration.js';
import {eventTypes} from '../../platform/types.js';
import {storedEventJob} from '../../receiver/answer/answer-job.js';
import {journalError} from '../../receiver/journal/errors.js';
import {platformPort} from '../../receiver/answer/platform-port.js';
import {createForwarder} from '../../receiver/forward/forward.js';
import type {Deps} from '../../cli/deps.js';
import {readFlags} from '../../cli/flag-values.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {UsageError, secretListFlag} from '../../cli/validators.js';
import {filterFlags, hasFilter, listFilter, parseFilter, type FilterOptions} from './filter-flags.js';
import {UserError} from '../../errors.js';
import type {EventBackend, JobHandler, StoredEvent} from '../../receiver/store/backend.js';
import {parseSets, type FieldSet} from '../trigger/fixture.js';
import {editableBody, editText, replayEdited} from './edit-replay.js';
import {bulkReplay} from './replay-bulk.js';
import {openStore, parseStore, stderrWarning, storedEvent, storeFlags, unknownEvent, type StoreOptions} from './shared.js';

export type ReplayOptions = StoreOptions & {
	ids: string[];
	filter: FilterOptions;
	dryRun: boolean;
	concurrency: number;
	forwardTo?: string;
	forwardRetries: number;
	/** --edit: open the body in $VISUAL/$EDITOR first. */
	edit: boolean;
	/** --set path=json, in order. */
	sets: FieldSet[];
};

const usage = 'platform-tui events replay <id> [--edit] [--set path=json]... | <id>... | --status failed [--since 1h] [--type T] [--dry-run] [--concurrency 4] [--forward-to URL] [--json] [--data-dir DIR | --redis URL]';

/** The handler a replay runs: the built-in answer, or the forward to the developer's handler. */
function replayHandler(options: ReplayOptions, deps: Deps, client: ReturnType<Deps['client']>, model: string) {
	if (!options.forwardTo) {
		return {handler: storedEventJob(platformPort(client), model), close: async () => Promise.resolve()};
	}

	const secret = secretListFlag(deps.settings(['endpointSecret'], 'events replay --forward-to').endpointSecret, 'endpointSecret')[0] ?? '';
	return createForwarder({url: options.forwardTo, secret, retries: options.forwardRetries});
}

/** Each flag once, with its default and range. */
const replayFlags = {
	...filterFlags,
	dryRun: {type: 'boolean', default: false, description: 'List what would be replayed; send nothing'},
	concurrency: {type: 'number', default: 4, range: {kind: 'int', min: 1, max: 256}, description: 'Events replayed at once', placeholder: 'N'},
	forwardTo: {type: 'string', range: {kind: 'url', protocols: ['http:', 'https:']}, description: 'Forward the events to your own handler (as serve --forward-to does) instead of answering them', placeholder: 'URL'},
	forwardRetries: {type: 'number', default: 5, range: {kind: 'int', min: 0, max: 100}, description: 'Retries of a forward that got no 2xx', placeholder: 'N'},
	edit: {type: 'boolean', default: false, description: 'Open the body in $VISUAL/$EDITOR first; the edited copy is stored as a new event (new id, editedFrom the original) and processed'},
	set: {type: 'string', isMultiple: true, description: 'Change a field of the body first (a dotted path and a JSON value; repeatable); stored as a new event like --edit', placeholder: 'PATH=JSON'},
	...storeFlags,
} satisfies Record<string, FlagSpec>;

type ReplayRecord = {type: 'replay'; id: string; editedFrom?: string; status: string; durationMs?: number; error?: string};

/**
 * The outcome of one event's replay: with --json its `replay` line and the closing `summary` every
 * replay ends with (docs/json.md); without, `sentence` on stdout, or on stderr when it failed.
 */
function reportOne(deps: Deps, record: ReplayRecord, sentence: string): void {
	const queued = record.status === 'queued' ? 1 : 0;
	const done = record.status === 'answered' ? 1 : 0;
	deps.output.print(record, done + queued > 0 ? sentence : undefined);
	deps.output.print({type: 'summary', total: 1, done, failed: 1 - done - queued, skipped: 0, queued, notReplayable: 0});
	if (!deps.output.json && done + queued === 0) {
		deps.context.stderr.write(sentence);
	}
}

/** `--edit`/`--set`: the edited copy stored as a new event and processed; its outcome printed. */
async function editAndReplay(stored: StoredEvent, options: ReplayOptions, deps: Deps, backend: EventBackend, handler: JobHandler): Promise<number> {
	const {context} = deps;
	let text = editableBody(stored);
	if (options.edit) {
		if (!context.interactive) {
			throw new UsageError('not-interactive', 'events replay --edit needs a terminal for the editor; change fields with --set path=json instead.');
		}

		const edited = editText(text, context.env, `${stored.id}.json`);
		if (edited.trim() === text.trim() && options.sets.length === 0) {
			context.stderr.write(`The body of ${stored.id} was not changed; nothing was replayed.\n`);
			return 1;
		}

		text = edited;
	}

	const done = await replayEdited(backend, handler, stored, text, options.sets, new Date(deps.clock.now()));
	const {result} = done;
	if (result.outcome !== 'done') {
		throw new UserError('replay-not-done', `The edited copy of ${stored.id} was stored as ${done.id} but not processed (${result.outcome === 'busy' ? `held by ${result.holder}` : result.outcome}); replay it with \`platform-tui events replay ${done.id}\`.`);
	}

	const what = `Stored the edited copy of ${stored.id} as ${done.id} and replayed it`;
	reportOne(deps, {type: 'replay', id: done.id, editedFrom: stored.id, status: result.result.status, ...(result.result.error ? {error: result.result.error} : {})}, result.result.status === 'answered'
		? `${what}: answered.\n`
		: `${what}: failed: ${result.result.error ?? 'no reason given'}. See \`platform-tui events show ${done.id}\` for its steps.\n`);

	return result.result.status === 'answered' ? 0 : 1;
}

const command: Command<ReplayOptions> = {
	complete: 'event-id',
	usage,
	description: 'Process a stored external-module.chosen event again (after an outage or a fix): new message logs and the answer are written. Works whether or not serve runs; an event another process is working on is refused.',
	flags: replayFlags,
	examples: [
		'platform-tui events replay evt_0123456789abcdef01234567',
		'platform-tui events replay evt_0123 --edit',
		'platform-tui events replay evt_0123 --set payload.userMessage.text=\'"What does it cost?"\'',
		'platform-tui events replay --status failed --since 1h --dry-run',
		'platform-tui events replay --status failed --type external-module.chosen --concurrency 8 --json',
	],
	parse({argv, flags, env}) {
		const ids = argv.map(id => id.trim()).filter(id => id !== '');
		const filter = parseFilter(flags);
		if (ids.length === 0 && !hasFilter(filter)) {
			throw new UsageError('argument-missing', `Name the events or filter them: ${usage}`);
		}

		const {dryRun, concurrency, forwardTo, forwardRetries, edit} = readFlags(replayFlags, {flags, env});
		const sets = parseSets(flags.set);
		if ((edit || sets.length > 0) && (ids.length !== 1 || hasFilter(filter) || dryRun || forwardTo !== undefined)) {
			throw new UsageError('flag-invalid', `--edit and --set change one event: name one id, without filters, --dry-run or --forward-to: ${usage}`);
		}
		return {
			...parseStore(flags, env),
			ids,
			filter,
			dryRun,
			concurrency,
			...(forwardTo ? {forwardTo} : {}),
			forwardRetries,
			edit,
			sets,
		};
	},
	async run(options, deps) {
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId'], 'events replay');
		const {backend, directory} = await openStore(options, 'replay', deps.context.env, {warn: stderrWarning(deps.context.stderr)});
		const client = deps.client(settings);
		const model = settings.model ?? defaultModel;
		const single = options.ids.length === 1 && !hasFilter(options.filter) && !options.dryRun && !options.forwardTo;
		const handler = single ? undefined : replayHandler(options, deps, client, model);
		try {
			if (handler) {
				return await bulkReplay(backend, () => handler.handler, {
					directory,
					ids: options.ids,
					...(hasFilter(options.filter) ? {filter: listFilter(options.filter, deps.clock.now())} : {}),
					dryRun: options.dryRun,
					concurrency: options.concurrency,
					anyType: options.forwardTo !== undefined,
				}, deps);
			}

			// The id as given may be the start of one: the stored event's whole id from here on.
			const stored = await storedEvent(backend, options.ids[0] ?? '', directory);
			const {id} = stored;
			if (stored.event !== eventTypes.externalModuleChosen) {
				throw journalError('journal-event-not-replayable', {id: id, event: stored.event}, `event ${id} is not a chosen-module event`);
			}

			if (options.edit || options.sets.length > 0) {
				return await editAndReplay(stored, options, deps, backend, storedEventJob(platformPort(client), model));
			}

			const result = await backend.replay(id, storedEventJob(platformPort(client), model));
			switch (result.outcome) {
				case 'unknown': {
					throw unknownEvent(id, result.near, directory);
				}

				case 'busy': {
					throw journalError('journal-event-busy', {id: id, holder: result.holder}, `event ${id} is held by ${result.holder}`);
				}

				case 'queued': {
					reportOne(deps, {type: 'replay', id, status: 'queued'}, `Queued ${id} again; a serve replica will process it.\n`);
					return 0;
				}

				default: {
					break;
				}
			}

			const after = await backend.get(id);
			const took = after?.durationMs === undefined ? '' : ` in ${formatMs(after.durationMs)}`;
			reportOne(deps, {type: 'replay', id, status: result.result.status, ...(after?.durationMs === undefined ? {} : {durationMs: after.durationMs}), ...(result.result.error ? {error: result.result.error} : {})}, result.result.status === 'answered'
				? `Replayed ${id}: answered${took}; the answer is written in chat ${stored.chatId ?? '(unknown)'}.\n`
				: `Replayed ${id}: failed${took}: ${result.result.error ?? 'no reason given'}. See \`platform-tui events show ${id}\` for its steps.\n`);
			return result.result.status === 'answered' ? 0 : 1;
		} finally {
			await handler?.close();
			await client.close();
			await backend.close();
		}
	},
};

export default command;
