/**
 * `platform-tui events` in a terminal (or `events inspect`): the event inspector over the whole
 * journal (source/ui/events/InspectorScreen.tsx). Replays and edited copies are processed in this
 * process, as `events replay` does; the journal is opened without the full read at open (the
 * inspector reads pages only, so a million events open in well under a second). What only `r`
 * and `e` need (the answer pipeline, the platform client, the editor) loads when first used, and
 * the screen (React, Ink) once the journal is open, with React's production build (react-build.ts).
 */
import {defaultModel} from '../../config/settings.js';
import {UserError} from '../../errors.js';
import {formatMs} from '../../format/duration.js';
import {errorMessage} from '../../format/value.js';
import {colorEnabled} from '../../terminal.js';
import {eventTypes} from '../../platform/types.js';
import type {StoredEvent} from '../../receiver/store/backend.js';
import {JournalBackend} from '../../receiver/journal/journal.js';
import {clipboardSupported, osc52} from '../../ui/events/inspector-format.js';
import {withReactBuild} from '../../ui/react-build.js';
import type {Deps} from '../../cli/deps.js';
import type {Command} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';
import {openStore, parseStore, storeFlags, type StoreOptions} from './shared.js';

export type InspectOptions = StoreOptions;

/** Alternate screen on and off: the inspector leaves the scrollback as it found it. */
const enterScreen = '\u001B[?1049h\u001B[H';
const leaveScreen = '\u001B[?1049l';

function notReplayable(event: StoredEvent): string | undefined {
	return event.event === eventTypes.externalModuleChosen ? undefined : `${event.id} is a ${event.event} event; only chosen-module events are processed`;
}

/** The inspector's r, e and y, done by this process. */
function inspectorActions(backend: JournalBackend, deps: Deps, pauseScreen: <T>(work: () => T) => T) {
	let client: ReturnType<Deps['client']> | undefined;
	const handler = async () => {
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId'], 'events (replay)');
		const [{storedEventJob}, {platformPort}] = await Promise.all([import('../../receiver/answer/answer-job.js'), import('../../receiver/answer/platform-port.js')]);
		client ??= deps.client(settings);
		return storedEventJob(platformPort(client), settings.model ?? defaultModel);
	};

	return {
		close: async () => client?.close(),
		actions: {
			async replay(event: StoredEvent) {
				const refusal = notReplayable(event);
				if (refusal) {
					return refusal;
				}

				const result = await backend.replay(event.id, await handler());
				if (result.outcome === 'busy') {
					return `${event.id} is held by ${result.holder}; not replayed`;
				}

				if (result.outcome !== 'done') {
					return `${event.id} is no longer in the journal`;
				}

				const after = await backend.get(event.id);
				const took = after?.durationMs === undefined ? '' : ` in ${formatMs(after.durationMs)}`;
				return `Replayed ${event.id}: ${result.result.status}${took}${result.result.error ? `: ${result.result.error}` : ''}`;
			},
			async edit(event: StoredEvent) {
				const refusal = notReplayable(event);
				if (refusal) {
					return refusal;
				}

				const {editableBody, editText, replayEdited} = await import('./edit-replay.js');
				const text = editableBody(event);
				const edited = pauseScreen(() => editText(text, deps.context.env, `${event.id}.json`));
				if (edited.trim() === text.trim()) {
					return `The body of ${event.id} was not changed; nothing was replayed`;
				}

				try {
					const done = await replayEdited(backend, await handler(), event, edited, [], new Date(deps.clock.now()));
					const status = done.result.outcome === 'done' ? done.result.result.status : done.result.outcome;
					return `Stored the edited copy of ${event.id} as ${done.id} and replayed it: ${status}`;
				} catch (error) {
					return `Not replayed: ${errorMessage(error)}`;
				}
			},
			copy(id: string) {
				deps.context.stdout.write(osc52(id));
				return clipboardSupported(deps.context.env) ? `Copied ${id}` : `Copy ${id} (sent to the clipboard with OSC 52; this terminal shows no sign it takes it)`;
			},
		},
	};
}

const command: Command<InspectOptions> = {
	usage: 'platform-tui events [inspect] [--data-dir DIR]',
	description: 'Open the event inspector over the whole journal, newest first, following new events while serve writes: / search, f filter, Enter details, r replay, e edit and replay, y copy the id, p pause, ? help, q quit (docs/events.md). Needs a terminal; `platform-tui events list` is the form for scripts.',
	flags: {dataDir: storeFlags.dataDir},
	examples: ['platform-tui events', 'platform-tui events --data-dir /var/lib/platform-tui'],
	parse({flags, env}) {
		const store = parseStore(flags, env);
		return store.dataDir ? {dataDir: store.dataDir} : {};
	},
	async run(options, deps) {
		const {context} = deps;
		if (!context.interactive) {
			throw new UsageError('not-interactive', 'The event inspector needs a terminal; in scripts list the events with `platform-tui events list` (--json for NDJSON).');
		}

		const warnings: string[] = [];
		const {backend, where} = await openStore(options, 'replay', context.env, {verify: false, warn: text => warnings.push(text)});
		if (!(backend instanceof JournalBackend)) {
			await backend.close();
			throw new UserError('inspect-unsupported', 'The inspector reads the event journal; this data directory has none yet (start serve once), or list the events with `platform-tui events list`.');
		}

		const {renderInspector} = await withReactBuild(async () => import('../../ui/events/inspector-app.js'));
		const {stdout} = context;
		const stdin: {setRawMode?: (mode: boolean) => unknown} = context.stdin;
		const pauseScreen = <T,>(work: () => T): T => {
			stdout.write(leaveScreen);
			stdin.setRawMode?.(false);
			try {
				return work();
			} finally {
				stdin.setRawMode?.(true);
				// Back on the alternate screen, cleared, the cursor where the last frame left it: the next
				// frame erases and redraws exactly its own lines.
				stdout.write('\u001B[?1049h\u001B[2J');
			}
		};

		const {actions, close} = inspectorActions(backend, deps, pauseScreen);
		stdout.write(enterScreen);
		try {
			const app = renderInspector(context, {
				read: query => backend.readPage(query),
				get: async id => backend.get(id),
				where,
				...(warnings.length > 0 ? {notice: warnings.join(' ')} : {}),
				actions,
				colour: colorEnabled(context.stdout, context.env),
				onQuit() {
					app.unmount();
				},
			});
			const cancel = () => {
				app.unmount();
			};

			context.signal.addEventListener('abort', cancel, {once: true});
			await app.waitUntilExit();
			context.signal.removeEventListener('abort', cancel);
		} finally {
			stdout.write(leaveScreen);
			await close();
			await backend.close();
		}

		return 0;
	},
};

export default command;
