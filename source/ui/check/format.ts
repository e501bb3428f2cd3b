/** What `check` prints: a heading, one row per key that differs, and the verdict. */
import {plural} from '../../format/text.js';
import type {CheckDifference, CheckReport} from '../../workflow/check.js';

const label: Record<CheckDifference['status'], string> = {
	missing: 'missing',
	changed: 'changed',
	'only-on-chat': 'only on chat',
};

const why: Record<CheckDifference['reason'], string> = {
	'not-uploaded': 'not in the chat',
	'content-gone': 'its content is gone from the chat',
	failed: 'its ingestion failed in the chat',
	hash: 'other bytes than the chat holds',
	unknown: 'the chat holds this key, bytes unknown to this machine\'s manifest',
	'no-file': 'no such file in the folder',
};

/** The counts of a report, as its `check` JSON line carries them. */
export function checkSummary(report: CheckReport): {chatId: string; folder: string; manifest: string; matched: number; ingesting: number; missing: number; changed: number; onlyOnChat: number} {
	const count = (status: CheckDifference['status']) => report.differences.filter(difference => difference.status === status).length;
	return {chatId: report.chatId, folder: report.folder, manifest: report.manifest, matched: report.matched, ingesting: report.ingesting, missing: count('missing'), changed: count('changed'), onlyOnChat: count('only-on-chat')};
}

/** The heading (progress, on stderr), the rows that differ and the verdict (the result, on stdout). */
export function checkLines(report: CheckReport): {head: string; rows: string[]; foot: string} {
	const summary = checkSummary(report);
	const head = `Check: ${report.folder} against chat ${report.chatId} (manifest ${report.manifest})`;
	const rows = report.differences.map(difference => `  ${label[difference.status].padEnd(12)}  ${difference.name}  (${why[difference.reason]})`);
	const ingesting = summary.ingesting > 0 ? `, ${summary.ingesting} still ingesting` : '';
	if (rows.length === 0) {
		return {head, rows, foot: `Match: ${report.folder} and chat ${report.chatId} hold the same ${plural(summary.matched, 'file')}${ingesting}`};
	}

	const parts = [
		summary.missing > 0 ? `${summary.missing} missing from the chat` : '',
		summary.changed > 0 ? `${summary.changed} changed` : '',
		summary.onlyOnChat > 0 ? `${summary.onlyOnChat} only on the chat` : '',
	].filter(Boolean);
	return {head, rows, foot: `Differ: ${parts.join(', ')}; ${summary.matched} match${ingesting}`};
}
