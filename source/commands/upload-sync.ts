/**
 * The sync flags of `upload` (`--chat`, `--include`, `--exclude`, `--recursive`, `--dry-run`,
 * `--interactive`): their specs, parsing, what they add to the workflow's options, and the dry run.
 * Without any of them `upload` is exactly spec §4.3.
 */
import {defaultDataDir} from '../receiver/journal/location.js';
import type {UploadEvent} from '../workflow/events.js';
import {manifestPath} from '../workflow/manifest.js';
import type {UploadOptions} from '../workflow/run-upload.js';
import {checkGlob, isPlainSelection, type Selection} from '../workflow/select.js';
import type {Deps} from '../cli/deps.js';
import type {FlagSpec} from '../cli/types.js';
import {readFlags} from '../cli/flag-values.js';
import {UsageError} from '../cli/validators.js';

export type SyncCommandOptions = {
	chatId?: string;
	include: string[];
	exclude: string[];
	recursive: boolean;
	dryRun: boolean;
	interactive: boolean;
};

export const syncFlags = {
	chat: {type: 'string', description: 'Upload into this existing chat instead of a new one, skipping unchanged files', placeholder: 'CHAT_ID'},
	include: {type: 'string', isMultiple: true, description: 'Upload only files whose key matches (glob)', placeholder: 'GLOB'},
	exclude: {type: 'string', isMultiple: true, description: 'Leave out files whose key matches (glob)', placeholder: 'GLOB'},
	recursive: {type: 'boolean', default: false, description: 'Include subfolders (keys are paths relative to the folder)'},
	dryRun: {type: 'boolean', default: false, description: 'Print what would be uploaded, replaced and skipped; make no platform call'},
	interactive: {type: 'boolean', default: false, shortFlag: 'i', description: 'After the reply, keep asking follow-up questions in the chat'},
} satisfies Record<string, FlagSpec>;

export function parseSyncFlags(flags: Record<string, unknown>): SyncCommandOptions {
	const {chat: chatId, ...values} = readFlags(syncFlags, {flags, env: {}});
	const options: SyncCommandOptions = {...values, ...(chatId === undefined ? {} : {chatId})};

	for (const [name, globs] of [['include', options.include], ['exclude', options.exclude]] as const) {
		for (const glob of globs) {
			const problem = checkGlob(glob);
			if (problem !== undefined) {
				throw new UsageError('glob-invalid', `--${name} ${JSON.stringify(glob)} is not a valid glob (${problem}); write literal [ ] { } ( ) with a backslash before them, e.g. --${name} "\\[draft\\]*.md", or a glob such as --${name} "drafts/**".`);
			}
		}
	}

	if (options.dryRun && options.interactive) {
		throw new UsageError('flags-conflict', '--dry-run asks nothing, so it cannot be combined with --interactive.');
	}

	if (flags.local === true && chatId !== undefined) {
		throw new UsageError('flags-conflict', '--local starts a new, empty platform, so it has no chat to pass to --chat.');
	}

	return options;
}

export function selectionOf(options: SyncCommandOptions): Selection {
	return {recursive: options.recursive, include: options.include, exclude: options.exclude};
}

/** True when a sync flag is given: the run then keeps a manifest (the plain upload keeps none). */
export function isSync(options: SyncCommandOptions): boolean {
	return options.chatId !== undefined || !isPlainSelection(selectionOf(options));
}

function manifestOf(env: NodeJS.ProcessEnv, baseUrl: string): NonNullable<UploadOptions['manifest']> {
	const dataDir = defaultDataDir(env);
	return {baseUrl, file: chatId => manifestPath(dataDir, baseUrl, chatId)};
}

/** What the sync flags add to the workflow's options; nothing for a plain upload. */
export function syncWorkflowOptions(options: SyncCommandOptions, env: NodeJS.ProcessEnv, baseUrl: string): Pick<UploadOptions, 'chatId' | 'selection' | 'manifest'> {
	if (!isSync(options)) {
		return {};
	}

	return {
		...(options.chatId === undefined ? {} : {chatId: options.chatId}),
		selection: selectionOf(options),
		manifest: manifestOf(env, baseUrl),
	};
}

/** `--dry-run`: lists what would be uploaded, replaced and skipped; no platform call. Exit 0. */
export async function runDryRun(deps: Deps, folder: string, options: SyncCommandOptions): Promise<number> {
	const {context} = deps;
	const [{dryRunUpload}, {plainLine}] = await Promise.all([import('../workflow/sync.js'), import('../ui/upload/plain.js')]);
	// The manifest is found by the platform's address; only --chat needs it (and only the address).
	const baseUrl = options.chatId === undefined ? undefined : deps.settings(['baseUrl'], 'platform-tui upload --dry-run').baseUrl;
	await dryRunUpload({
		folder,
		selection: selectionOf(options),
		...(options.chatId === undefined ? {} : {chatId: options.chatId}),
		...(baseUrl === undefined ? {} : {manifest: manifestOf(context.env, baseUrl)}),
	}, (event: UploadEvent) => {
		if (context.json) {
			deps.writeJson(event);
			return;
		}

		const line = plainLine(event);
		if (line !== undefined) {
			context.stdout.write(`${line}\n`);
		}
	});
	return 0;
}
