/**
 * The sync flags of `upload` (`--chat`, `--include`, `--exclude`, `--recursive`, `--dry-run`,
 * `--interactive`, `--delete`, `--delete-excluded`, `--max-delete`, `--min-age`): their specs,
 * parsing, what they add to the workflow's options, and the dry run. Without any of them `upload`
 * is exactly spec §4.3 (and keeps the new chat's manifest, so a stopped run can be continued).
 */
import {defaultDataDir} from '../../receiver/journal/open/location.js';
import type {UploadEvent} from '../../workflow/events.js';
import {manifestPath} from '../../workflow/manifest.js';
import {defaultMaxDelete, type DeletionOptions} from '../../workflow/deletions.js';
import type {ManifestPlace, UploadOptions} from '../../workflow/run-upload.js';
import {checkGlob, isPlainSelection, type Selection} from '../../workflow/select.js';
import type {Deps} from '../../cli/deps.js';
import type {FlagSpec} from '../../cli/types.js';
import {readFlags} from '../../cli/flag-values.js';
import {UsageError} from '../../cli/validators.js';

export type SyncCommandOptions = {
	chatId?: string;
	include: string[];
	exclude: string[];
	recursive: boolean;
	dryRun: boolean;
	interactive: boolean;
	delete: boolean;
	deleteExcluded: boolean;
	maxDelete: number;
	/** --min-age in milliseconds; 0: every file is sent. */
	minAgeMs: number;
};

export const syncFlags = {
	chat: {type: 'string', complete: 'chat-id', description: 'Upload into this existing chat instead of a new one, skipping unchanged files', placeholder: 'CHAT_ID'},
	include: {type: 'string', isMultiple: true, description: 'Upload only files whose key matches (glob)', placeholder: 'GLOB'},
	exclude: {type: 'string', isMultiple: true, description: 'Leave out files whose key matches (glob)', placeholder: 'GLOB'},
	recursive: {type: 'boolean', default: false, description: 'Include subfolders (keys are paths relative to the folder)'},
	dryRun: {type: 'boolean', default: false, description: 'Print what would be uploaded, replaced and skipped; send and change nothing (with --chat, the platform is asked what the run would ask)'},
	interactive: {type: 'boolean', default: false, shortFlag: 'i', description: 'After the reply, keep asking follow-up questions in the chat'},
	delete: {type: 'boolean', default: false, description: 'With --chat: delete the chat\'s contents whose file is gone from the folder'},
	deleteExcluded: {type: 'boolean', default: false, description: 'With --chat: also delete contents whose file is now left out by --include/--exclude (implies --delete)'},
	maxDelete: {type: 'string', default: defaultMaxDelete, range: {kind: 'int', min: 0, max: 1_000_000}, description: 'Refuse a run that would delete more contents than this', placeholder: 'N'},
	minAge: {type: 'string', default: '0s', range: {kind: 'duration', min: 0, max: 3650 * 86_400_000}, description: 'Skip files modified less than this long ago (still being written), e.g. 30s, 5m', placeholder: 'DURATION'},
} satisfies Record<string, FlagSpec>;

export function parseSyncFlags(flags: Record<string, unknown>): SyncCommandOptions {
	const {chat: chatId, minAge: minAgeMs, ...values} = readFlags(syncFlags, {flags, env: {}});
	const options: SyncCommandOptions = {...values, minAgeMs, ...(chatId === undefined ? {} : {chatId})};
	if ((options.delete || options.deleteExcluded) && chatId === undefined) {
		throw new UsageError('flags-conflict', `--${options.delete ? 'delete' : 'delete-excluded'} mirrors deletions into an existing chat, so it needs --chat CHAT_ID (a new chat has nothing to delete).`);
	}

	checkGlobs(options);
	if (options.dryRun && options.interactive) {
		throw new UsageError('flags-conflict', '--dry-run asks nothing, so it cannot be combined with --interactive.');
	}

	if (flags.local === true && chatId !== undefined) {
		throw new UsageError('flags-conflict', '--local starts a new, empty platform, so it has no chat to pass to --chat.');
	}

	return options;
}

/** Refuses an --include or --exclude that is no glob, with how to write one. */
export function checkGlobs(options: Pick<SyncCommandOptions, 'include' | 'exclude'>): void {
	for (const [name, globs] of [['include', options.include], ['exclude', options.exclude]] as const) {
		for (const glob of globs) {
			const problem = checkGlob(glob);
			if (problem !== undefined) {
				throw new UsageError('glob-invalid', `--${name} ${JSON.stringify(glob)} is not a valid glob (${problem}); write literal [ ] { } ( ) with a backslash before them, e.g. --${name} "\\[draft\\]*.md", or a glob such as --${name} "drafts/**".`);
			}
		}
	}
}

/** The files the selection flags choose, as `upload` and `check` both list them. */
export function selectionOf(options: Pick<SyncCommandOptions, 'recursive' | 'include' | 'exclude' | 'minAgeMs'>): Selection {
	return {recursive: options.recursive, include: options.include, exclude: options.exclude, ...(options.minAgeMs > 0 ? {minAgeMs: options.minAgeMs} : {})};
}

function deletionOf(options: SyncCommandOptions): DeletionOptions | undefined {
	return options.delete || options.deleteExcluded ? {delete: true, deleteExcluded: options.deleteExcluded, maxDelete: options.maxDelete} : undefined;
}

/** True when a sync flag is given: the run then keeps a manifest (the plain upload keeps none). */
export function isSync(options: SyncCommandOptions): boolean {
	return options.chatId !== undefined || !isPlainSelection(selectionOf(options));
}

/**
 * Where a chat's manifest lives, and the profile the run records in it: the one the run's store
 * chose when it read the settings (ConfigStore.profileName), so the config file is not read again.
 */
export function manifestOf(deps: Pick<Deps, 'context' | 'store'>, baseUrl: string): ManifestPlace {
	const dataDir = defaultDataDir(deps.context.env);
	return {baseUrl, dataDir, file: chatId => manifestPath(dataDir, baseUrl, chatId), profile: deps.store().profileName()};
}

/**
 * What the sync flags add to the workflow's options. Every upload to a configured platform keeps
 * its manifest (`keepManifest`); the in-process local platform's chats end with the process.
 */
export function syncWorkflowOptions(options: SyncCommandOptions, deps: Pick<Deps, 'context' | 'store'>, baseUrl: string, keepManifest: boolean): Pick<UploadOptions, 'chatId' | 'selection' | 'manifest' | 'deletion'> {
	const deletion = deletionOf(options);
	return {
		...(options.chatId === undefined ? {} : {chatId: options.chatId}),
		...(isSync(options) || options.minAgeMs > 0 ? {selection: selectionOf(options)} : {}),
		...(keepManifest ? {manifest: manifestOf(deps, baseUrl)} : {}),
		...(deletion === undefined ? {} : {deletion}),
	};
}

/**
 * `--dry-run`: lists what would be uploaded, replaced and skipped; exit 0. With --chat it asks the
 * platform what the run would (the chat, its contents' states, the keys it holds: reads only), so
 * the plan is the run's.
 */
export async function runDryRun(deps: Deps, folder: string, options: SyncCommandOptions): Promise<number> {
	const {context} = deps;
	const [{dryRunUpload}, {plainLine}, {configuredTarget}] = await Promise.all([import('../../workflow/sync.js'), import('../../ui/upload/plain.js'), import('../platform-target.js')]);
	const print = (event: UploadEvent): void => {
		deps.output.print(event, () => {
			const line = plainLine(event);
			return line === undefined ? undefined : `${line}\n`;
		});
	};

	const deletion = deletionOf(options);
	const base = {folder, selection: selectionOf(options), ...(deletion === undefined ? {} : {deletion})};
	if (options.chatId === undefined) {
		await dryRunUpload(base, print);
		return 0;
	}

	const target = configuredTarget(deps, undefined, 'platform-tui upload --dry-run');
	try {
		await dryRunUpload({...base, chatId: options.chatId, manifest: manifestOf(deps, target.baseUrl), platform: {client: target.client, signal: context.signal}}, print);
	} finally {
		await target.close();
	}

	return 0;
}
