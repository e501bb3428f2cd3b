/**
 * Edit and replay: the body of a stored event opened in $VISUAL/$EDITOR (or changed by --set),
 * checked as JSON, stored as a new event naming the original, and processed at once. Shared by
 * `events replay <id> --edit|--set` and the inspector's `e`.
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {UserError} from '../../errors.js';
import type {EventBackend, JobHandler, ReplayResult, StoredEvent} from '../../receiver/backend.js';
import {editedEvent, type FieldChange} from '../../receiver/edit-event.js';
import {prettyBody} from '../../ui/events/format.js';

/** The editor a person chose: $VISUAL, else $EDITOR, else vi. */
export function editorCommand(env: NodeJS.ProcessEnv): string {
	return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
}

/**
 * Opens `text` in the editor on this terminal and returns what was saved. The editor command is
 * run by the shell (it may carry arguments, `code --wait`), the file given as its last argument.
 */
export function editText(text: string, env: NodeJS.ProcessEnv, name: string): string {
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-edit-'));
	const file = path.join(folder, name);
	try {
		writeFileSync(file, text, {mode: 0o600});
		const editor = editorCommand(env);
		const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], {stdio: 'inherit', env});
		if (run.error || run.status !== 0) {
			throw new UserError('editor-failed', `The editor (${editor}) ${run.error ? `could not run: ${run.error.message}` : `exited with ${run.status ?? run.signal ?? 'an error'}`}; nothing was replayed. Set VISUAL or EDITOR to an editor that waits until the file is closed.`);
		}

		return readFileSync(file, 'utf8');
	} finally {
		rmSync(folder, {recursive: true, force: true});
	}
}

export type EditedReplay = {original: string; id: string; result: ReplayResult};

/**
 * Stores the edited copy of `original` (the body `text`, then `changes`) as a new event and
 * replays it through `handler`. Refused, before anything is stored, when the body is not a JSON
 * object or the events are kept where an edited copy cannot be stored (Redis).
 */
export async function replayEdited(backend: EventBackend, handler: JobHandler, original: StoredEvent, text: string, changes: readonly FieldChange[], now: Date): Promise<EditedReplay> {
	const event = editedEvent(original, text, changes, now);
	if (!backend.storeEdited) {
		throw new UserError('edit-unsupported', 'Edited events are kept in the journal only; replay with --data-dir DIR (not --redis).');
	}

	await backend.storeEdited(event);
	return {original: original.id, id: event.id, result: await backend.replay(event.id, handler)};
}

/** The body to edit: the stored one, indented. */
export function editableBody(event: StoredEvent): string {
	return `${prettyBody(event)}\n`;
}
