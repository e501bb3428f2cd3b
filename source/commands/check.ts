/**
 * `platform-tui check <folder> --chat ID`: rclone's check. The folder, listed with the upload's
 * selection flags, is compared with what the chat holds (its manifest, confirmed on the platform),
 * and every key on which they differ is named: missing from the chat, changed, or only on the
 * chat. Exit 0 when they match, 1 when they differ (or the check failed).
 */
import {readFlags} from '../cli/flag-values.js';
import {outputFlags} from '../cli/flags.js';
import type {Command, FlagSpec} from '../cli/types.js';
import {UsageError} from '../cli/validators.js';
import {checkGlobs, manifestOf, selectionOf, syncFlags} from './upload/sync.js';
import type {Selection} from '../workflow/select.js';

export const checkUsage = 'Usage: platform-tui check <folder_path> --chat CHAT_ID';

export type CheckCommandOptions = {
	folder: string;
	chatId: string;
	selection: Selection;
	quiet: boolean;
};

/** The selection flags are upload's own declarations, so both list a folder alike. */
const checkFlags = {
	chat: {...syncFlags.chat, description: 'The chat to compare the folder with (required; see platform-tui chats)'},
	include: {...syncFlags.include, description: 'Compare only files whose key matches (glob), as upload --include chose them'},
	exclude: {...syncFlags.exclude, description: 'Leave out files whose key matches (glob), as upload --exclude did'},
	recursive: syncFlags.recursive,
	minAge: {...syncFlags.minAge, description: 'Leave out files modified less than this long ago, as upload --min-age did, e.g. 30s, 5m'},
	quiet: outputFlags.quiet,
} satisfies Record<string, FlagSpec>;

const command: Command<CheckCommandOptions> = {
	usage: 'platform-tui check <folder_path> --chat CHAT_ID [--recursive] [--include GLOB] [--exclude GLOB]',
	description: 'Compare a folder with what a chat holds (its manifest, confirmed on the platform) and list the files missing from the chat, changed, and only on the chat. Exit 0 when they match, 1 when they differ',
	flags: checkFlags,
	examples: [
		'platform-tui check ./docs --chat chat_123',
		'platform-tui check ./docs --chat chat_123 --recursive --exclude "drafts/**" --json',
	],
	parse(input) {
		if (input.argv.length !== 1) {
			throw input.argv.length === 0 ? new UsageError('argument-missing', checkUsage) : new UsageError('too-many-arguments', `${checkUsage}\n(got ${input.argv.length} arguments; quote a folder name with spaces)`);
		}

		const {chat, quiet, ...values} = readFlags(checkFlags, {flags: input.flags, env: {}});
		if (chat === undefined) {
			throw new UsageError('flag-missing', `Name the chat to compare with: ${checkUsage} (platform-tui chats lists the chats this machine synced).`);
		}

		checkGlobs(values);
		return {folder: input.argv[0] ?? '', chatId: chat, selection: selectionOf({...values, minAgeMs: values.minAge}), quiet};
	},
	async run(options, deps) {
		const {context} = deps;
		const [{checkFolder}, {checkLines, checkSummary}] = await Promise.all([import('../workflow/check.js'), import('../ui/check/format.js')]);
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'userId', 'companyId'], 'platform-tui check');
		const client = deps.client(settings);
		try {
			const report = await checkFolder({client, chatId: options.chatId, folder: options.folder, selection: options.selection, manifest: manifestOf(deps, settings.baseUrl), signal: context.signal});
			const same = report.differences.length === 0;
			if (deps.output.json) {
				for (const difference of report.differences) {
					deps.output.print({type: 'check-difference', chatId: report.chatId, ...difference});
				}

				deps.output.print({type: 'check', ...checkSummary(report), same});
			} else {
				const {head, rows, foot} = checkLines(report);
				if (!options.quiet) {
					context.stderr.write(`${head}\n`);
				}

				context.stdout.write([...rows, foot].map(line => `${line}\n`).join(''));
			}

			return same ? 0 : 1;
		} finally {
			await client.close();
		}
	},
};

export default command;
