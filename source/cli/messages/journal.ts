/** The sentences for the journal's error codes (source/receiver/journal/errors.ts) and the `events` commands. */
import {dirname} from 'node:path';
import type {JournalErrorData} from '../../receiver/journal/errors.js';
import type {MessageTable} from './types.js';

export const journalMessages: MessageTable = {
	'journal-locked': (data: JournalErrorData['journal-locked']) => ({
		message: `Another ${data.command ?? 'serve'} (process ${data.pid}) is already using the event journal in ${data.directory}.`,
		next: 'Stop that one first, give this one its own directory with --data-dir DIR, or run several replicas that share the work with --redis URL.',
	}),
	'journal-open-failed': (data: JournalErrorData['journal-open-failed']) => ({
		message: `The event journal in ${data.directory} could not be opened (${data.reason}).`,
		next: 'Check that the directory exists and is writable by this user, or choose another with --data-dir DIR.',
	}),
	'journal-missing': (data: JournalErrorData['journal-missing']) => ({
		message: `There is no event journal in ${data.directory}: serve has not stored any event there.`,
		next: 'Check the directory (--data-dir DIR or PLATFORM_TUI_DATA_DIR; serve prints the one it uses), or pass --redis URL for the events replicas share.',
	}),
	'journal-damaged': (data: JournalErrorData['journal-damaged']) => ({
		message: `The event journal file ${data.file} is damaged (${data.reason}), so it was not opened.`,
		next: `Run \`platform-tui events recover --data-dir ${data.directory}\` to copy every readable event into a fresh journal (the damaged file is kept beside it), or restore the file from a backup.`,
	}),
	'journal-read-only': (data: JournalErrorData['journal-read-only']) => data.readOnlyFileSystem
		? {
			message: `The event journal in ${data.folder} is on a read-only file system, so it was not opened for writing.`,
			next: 'Mount that file system read-write, or point --data-dir at a writable one; `events list` and `events show` read it as it is.',
		}
		: {
			message: `The event journal in ${data.folder} cannot be written by this user, so it was not opened for writing.`,
			next: 'Run this as the user that owns the journal, or give that folder write permission; `events list` and `events show` read it as it is.',
		},
	'journal-in-use': (data: JournalErrorData['journal-in-use']) => ({
		message: `The event journal in ${data.directory} is in use by process ${data.pid}, so it was not recovered.`,
		next: 'Stop that serve (or events replay) first, then run `platform-tui events recover` again.',
	}),
	'journal-unrecoverable': (data: JournalErrorData['journal-unrecoverable']) => ({
		message: `No event could be read from the journal file ${data.file} (${data.reason}); nothing was changed.`,
		next: `Restore the file from a backup, or move the folder ${dirname(data.file)} aside to start an empty journal (the events and ids in it are then no longer known).`,
	}),
	'journal-record-format': (data: JournalErrorData['journal-record-format']) => ({
		message: `Event ${data.id} is stored in the journal in record format ${data.format}, which this version of platform-tui cannot read: a later version wrote it.`,
		next: 'Run the platform-tui version that wrote the journal (or a later one) against this data directory.',
	}),
	'journal-record-damaged': (data: JournalErrorData['journal-record-damaged']) => ({
		message: `The journal's record of event ${data.id} (received ${data.receivedAt}) is damaged: ${data.reason}, so it is not read.`,
		next: 'Run `platform-tui events recover` to copy every other event into a fresh journal; this event\'s id is kept there, so its redelivery is still taken as a duplicate.',
	}),
	'journal-event-unknown': (data: JournalErrorData['journal-event-unknown']) => ({
		message: `No event ${data.id} in the journal in ${data.directory}.`,
		next: data.near.length > 0 ? `Did you mean ${data.near.join(', ')}?` : 'List the stored events with `platform-tui events list`.',
	}),
	'journal-event-ambiguous': (data: JournalErrorData['journal-event-ambiguous']) => ({
		message: `${data.prefix} is the start of more than one event in ${data.directory}: ${data.candidates.join(', ')}${data.more ? ' and more' : ''}.`,
		next: 'Give more of the id.',
	}),
	'journal-event-busy': (data: JournalErrorData['journal-event-busy']) => ({
		message: `Event ${data.id} is being processed by another process (${data.holder}), so it was not replayed.`,
		next: 'Try again once that process has finished with it (`platform-tui events show` tells its status).',
	}),
	'journal-event-not-replayable': (data: JournalErrorData['journal-event-not-replayable']) => ({
		message: `Event ${data.id} is a ${data.event} event; only platform.chat.external-module.chosen events are processed, so there is nothing to replay.`,
		next: 'Replay a chosen-module event instead (`platform-tui events list --type external-module-chosen`).',
	}),
};
