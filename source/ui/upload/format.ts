/** Text helpers of the upload screen and its plain-line output (the general ones live in source/format/). */
import {formatCountdown} from '../../format/duration.js';
import {plural} from '../../format/text.js';
import {oneLine} from '../../format/width.js';
import type {SkipKind, SkippedEntry} from '../../workflow/files.js';

export {formatBytes, formatRate} from '../../format/bytes.js';
export {formatElapsed, formatSeconds} from '../../format/duration.js';

/** A bar such as `██████░░░░░░ 50%`. */
export function progressBar(sent: number, total: number, width = 20): string {
	const ratio = total > 0 ? Math.min(1, Math.max(0, sent / total)) : 1;
	const filled = Math.round(ratio * width);
	return `${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${String(Math.floor(ratio * 100)).padStart(3)}%`;
}

/** Cuts text to `max` display columns with an ellipsis, on one line (runs of spaces kept). */
export function truncate(text: string, max: number): string {
	return oneLine(text, max);
}

const kindNames: Record<SkipKind, [string, string]> = {
	dotfile: ['dotfile', 'dotfiles'],
	folder: ['folder', 'folders'],
	'symlink-to-folder': ['symlink to a folder', 'symlinks to folders'],
	'broken-symlink': ['broken symlink', 'broken symlinks'],
	fifo: ['FIFO', 'FIFOs'],
	socket: ['socket', 'sockets'],
	device: ['device', 'devices'],
	filtered: ['file left out by --include/--exclude', 'files left out by --include/--exclude'],
	'too-recent': ['file modified within --min-age', 'files modified within --min-age'],
	other: ['other entry', 'other entries'],
};

/** `Skipped 4 entries: 2 folders (a, b), 1 dotfile (.env), 1 FIFO (pipe)` — names cut after a few. */
export function skippedLine(skipped: readonly SkippedEntry[], namesPerKind = 3): string {
	const groups = new Map<SkipKind, string[]>();
	for (const entry of skipped) {
		groups.set(entry.kind, [...(groups.get(entry.kind) ?? []), entry.name]);
	}

	const parts = [...groups].map(([kind, names]) => {
		const [one, many] = kindNames[kind];
		const shown = names.slice(0, namesPerKind).join(', ');
		const more = names.length > namesPerKind ? `, … ${names.length - namesPerKind} more` : '';
		return `${plural(names.length, one, many)} (${shown}${more})`;
	});
	return `Skipped ${plural(skipped.length, 'entry', 'entries')}: ${parts.join(', ')}`;
}

/** `retrying in 2 s after HTTP 503`, counting down from when the retry was announced. */
export function retryText(retry: {inMs: number; reason: string; at: number}, now: number): string {
	const left = retry.inMs - (now - retry.at);
	return left > 0 ? `retrying in ${formatCountdown(left)} after ${retry.reason}` : `retried after ${retry.reason}`;
}
