/**
 * Edit and replay: the body of a stored event opened in $VISUAL/$EDITOR (or changed by --set),
 * checked as JSON, stored as a new event naming the original, and processed at once. Shared by
 * `events replay <id> --edit|--set`, the inspector's `e` and the serve screen's `e`.
 */
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {UserError} from '../../errors.js';
import type {EventBackend, JobHandler, ReplayResult, StoredEvent} from '../../receiver/store/backend.js';
import {editedEvent, type FieldChange} from '../../receiver/intake/edit-event.js';
import {prettyBody} from '../../ui/events/body.js';

/** The editor a person chose: $VISUAL, else $EDITOR, else vi. */
export function editorCommand(env: NodeJS.ProcessEnv): string {
	return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
}

/**
 * Opens `text` in the editor on this terminal and returns what was saved. The editor command is
 * run by the shell (it may carry arguments, `code --wait`), the file given as its last argument.
 */
export function editText(text: string, env: NodeJS.ProcessEnv, name: string): string {
	const temporary = temporaryFile(text, name);
	try {
		const editor = editorCommand(env);
		const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', temporary.file], {stdio: 'inherit', env});
		if (run.error || run.status !== 0) {
			throw editorFailure(editor, run.error, run.status ?? run.signal);
		}

		return temporary.read();
	} finally {
		temporary.remove();
	}
}

/**
 * editText without blocking: for `serve`, whose receiver goes on answering while the editor is
 * open (the screen gives the terminal up for that time).
 */
export async function editTextAsync(text: string, env: NodeJS.ProcessEnv, name: string): Promise<string> {
	const temporary = temporaryFile(text, name);
	try {
		const editor = editorCommand(env);
		await new Promise<void>((resolve, reject) => {
			const child = spawn('/bin/sh', ['-c', `${editor} "$1"`, 'editor', temporary.file], {stdio: 'inherit', env});
			child.once('error', error => {
				reject(editorFailure(editor, error, null));
			});
			child.once('close', (code, signal) => {
				if (code === 0) {
					resolve();
				} else {
					reject(editorFailure(editor, undefined, code ?? signal));
				}
			});
		});
		return temporary.read();
	} finally {
		temporary.remove();
	}
}

/** The text in a file of its own (mode 600) in a new temporary folder, for the editor. */
function temporaryFile(text: string, name: string): {file: string; read(): string; remove(): void} {
	const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-edit-'));
	const file = path.join(folder, name);
	try {
		writeFileSync(file, text, {mode: 0o600});
	} catch (error) {
		rmSync(folder, {recursive: true, force: true});
		throw error;
	}

	return {file, read: () => readFileSync(file, 'utf8'), remove() {
		rmSync(folder, {recursive: true, force: true});
	}};
}

function editorFailure(editor: string, error: Error | undefined, ended: number | string | null): UserError {
	return new UserError('editor-failed', `The editor (${editor}) ${error ? `could not run: ${error.message}` : `exited with ${ended ?? 'an error'}`}; nothing was replayed. Set VISUAL or EDITOR to an editor that waits until the file is closed.`);
}

/**
 * The serve screen's `e`: the body opened in the editor, the edited copy stored as a new event
 * and processed by `replay` (the running receiver). Resolves to a sentence of what happened.
 */
export async function editWhileServing(original: StoredEvent | undefined, id: string, backend: EventBackend, replay: (id: string) => Promise<ReplayResult>, env: NodeJS.ProcessEnv, now: () => Date): Promise<string> {
	if (!original) {
		return `${id} is no longer stored; nothing was edited`;
	}

	if (!backend.storeEdited) {
		return 'Edited events are kept in the journal only; serve with --data-dir DIR (not --redis) to edit and replay.';
	}

	const text = editableBody(original);
	const edited = await editTextAsync(text, env, `${id}.json`);
	if (edited.trim() === text.trim()) {
		return `The body of ${id} was not changed; nothing was replayed`;
	}

	const event = editedEvent(original, edited, [], now());
	await backend.storeEdited(event);
	const result = await replay(event.id);
	return `Stored the edited copy of ${id} as ${event.id} and replayed it: ${result.outcome === 'done' ? result.result.status : result.outcome}`;
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
