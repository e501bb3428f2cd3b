/**
 * `platform-tui upload <folder> <prompt>`: the space-chat workflow (spec §4.3) with a live screen
 * in a terminal, plain lines otherwise, NDJSON with --json. Exit codes: 0 every file asked about;
 * 1 a failure, or (with --keep-going) some files left out while the reply is still printed;
 * 130 cancelled (143 on SIGTERM).
 */
import {createRetryTracker} from '../../workflow/retries.js';
import {defaultConcurrency, defaultTitle, type UploadOptions} from '../../workflow/run-upload.js';
import {selectFiles} from '../../workflow/select.js';
import {configuredTarget, localTarget} from '../platform-target.js';
import {parseSyncFlags, runDryRun, selectionOf, syncFlags, syncWorkflowOptions, type SyncCommandOptions} from './sync.js';
import {readFlags} from '../../cli/flag-values.js';
import {outputFlags, sharedFlags} from '../../cli/flags.js';
import {kebab} from '../../cli/kebab.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';
import {replyFlags} from '../reply-flags.js';
import {resumeCommand} from './resume.js';
import {runPlain} from './plain.js';
import {runScreen} from './screen.js';

export const usageLine = 'Usage: platform-tui upload <folder_path> <instruction_prompt>';

export type UploadCommandOptions = {
	folder: string;
	prompt: string;
	title: string;
	concurrency: number;
	pollIntervalMs: number;
	ingestionTimeoutMs?: number;
	replyTimeoutMs: number;
	keepGoing: boolean;
	local: boolean;
	model?: string;
	/** -q: only the result and errors (plain output; no live screen). */
	quiet: boolean;
	/** --stats: the plain output's summary line every so often; 0 never. */
	statsIntervalMs: number;
	/** --chat, --include, --exclude, --recursive, --dry-run, --interactive (sync.ts). */
	sync: SyncCommandOptions;
};

const conflictsWithLocal = ['baseUrl', 'appId', 'userId', 'companyId', 'assistantId'] as const;

/** upload's own flags, each once with its default and range (the sync flags are sync.ts's). */
const uploadFlags = {
	title: {type: 'string', default: defaultTitle, description: 'Title of the new chat', placeholder: 'TEXT'},
	concurrency: {type: 'string', default: defaultConcurrency, range: {kind: 'int', min: 1, max: 64}, description: 'Files transferred at the same time; 1 uploads one after another', placeholder: 'N'},
	pollInterval: {...replyFlags.pollInterval, description: 'Longest wait in seconds between two ingestion checks or reply polls; the first waits are shorter'},
	ingestionTimeout: {type: 'string', range: {kind: 'seconds', max: 86_400, example: 120}, description: 'Seconds to wait for ingestion (default min(60 + 20 × (files − 1), 120))', placeholder: 'SECONDS'},
	replyTimeout: {...replyFlags.replyTimeout, description: 'Seconds to wait for the assistant\'s reply'},
	keepGoing: {type: 'boolean', default: false, description: 'When some files fail, ask about the others and list the failures (exit 1)'},
	...outputFlags,
	local: {type: 'boolean', default: false, description: 'Run against a local platform started in-process (no configuration needed)'},
} satisfies Record<string, FlagSpec>;

const command: Command<UploadCommandOptions> = {
	usage: 'platform-tui upload <folder_path> <instruction_prompt> [options]',
	description: 'Create a space chat, upload every file of a folder into it, wait for ingestion, ask the prompt and print the reply and the chat history',
	flags: {...uploadFlags, ...syncFlags},
	examples: [
		'platform-tui upload ./docs "Summarise these documents"',
		'platform-tui upload --local test/fixtures/sample-docs "How long is the warranty?"',
		'platform-tui upload ./reports "List the open risks" --keep-going --json',
		'platform-tui upload ./docs "What changed?" --chat chat_123 --recursive --exclude "drafts/**"',
		'platform-tui upload ./docs "Summarise" --chat chat_123 --dry-run',
	],
	parse(input) {
		if (input.argv.length !== 2) {
			throw input.argv.length < 2
				? new UsageError('argument-missing', usageLine)
				: new UsageError('too-many-arguments', `${usageLine}\n(got ${input.argv.length} arguments; quote the prompt if it has spaces)`);
		}

		const [folder = '', prompt = ''] = input.argv;
		if (prompt.trim() === '') {
			throw new UsageError('prompt-empty', 'The instruction prompt is empty; pass the question to ask about the uploaded files.');
		}

		const {flags} = input;
		const values = readFlags(uploadFlags, input);
		// The global --model only when given: otherwise the run resolves it (env > stored > default).
		const {model} = readFlags({model: sharedFlags.model}, {flags, env: {}});
		const {local} = values;
		if (local) {
			const given = conflictsWithLocal.filter(name => typeof flags[name] === 'string');
			if (given.length > 0) {
				throw new UsageError('flags-conflict', `--local runs against its own local platform and cannot be combined with ${given.map(name => `--${kebab(name)}`).join(', ')}.`);
			}
		}

		const options: UploadCommandOptions = {
			folder,
			prompt,
			title: values.title,
			concurrency: values.concurrency,
			pollIntervalMs: values.pollInterval,
			replyTimeoutMs: values.replyTimeout,
			keepGoing: values.keepGoing,
			local,
			quiet: values.quiet,
			statsIntervalMs: values.stats,
			sync: parseSyncFlags(flags),
			...(values.ingestionTimeout === undefined ? {} : {ingestionTimeoutMs: values.ingestionTimeout}),
			...(model === undefined ? {} : {model}),
		};

		return options;
	},
	async run(options, deps) {
		const {context} = deps;
		if (options.sync.dryRun) {
			return runDryRun(deps, options.folder, options.sync);
		}

		if (options.sync.interactive && !context.interactive) {
			throw new UsageError('not-interactive', '--interactive opens a prompt after the reply, which needs a terminal (and no --json); ask follow-ups with platform-tui chat <chat-id> "…" instead.');
		}

		// The folder is listed before anything starts (the local platform, a chat): a typo or an empty
		// folder is one sentence, not a half-started run. The workflow takes this listing, so the
		// folder is read once.
		const listing = await selectFiles(options.folder, selectionOf(options.sync));

		const retries = createRetryTracker();
		const target = options.local ? await localTarget(deps, options, retries) : configuredTarget(deps, retries, 'platform-tui upload');
		const cancel = new AbortController();
		// The in-process local platform's chats end with the process: nothing to continue there.
		const resume = options.local ? undefined : (chatId: string): string => resumeCommand(options, chatId);
		const workflow: UploadOptions = {
			client: target.client,
			folder: options.folder,
			prompt: options.prompt,
			assistantId: target.assistantId,
			title: options.title,
			concurrency: options.concurrency,
			pollIntervalMs: options.pollIntervalMs,
			replyTimeoutMs: options.replyTimeoutMs,
			keepGoing: options.keepGoing,
			retries,
			signal: AbortSignal.any([context.signal, cancel.signal]),
			...(options.ingestionTimeoutMs === undefined ? {} : {ingestionTimeoutMs: options.ingestionTimeoutMs}),
			...syncWorkflowOptions(options.sync, deps, target.baseUrl, !options.local),
			listing,
		};
		try {
			if (context.interactive && !options.quiet) {
				const followUp = {ask: options.sync.interactive, pollIntervalMs: options.pollIntervalMs, replyTimeoutMs: options.replyTimeoutMs};
				return await runScreen(deps, {workflow, cancel, target, resume, followUp});
			}

			return await runPlain(deps, workflow, {note: target.note, resumeFor: resume, quiet: options.quiet, statsIntervalMs: options.statsIntervalMs});
		} finally {
			await target.close();
		}
	},
};

export default command;
