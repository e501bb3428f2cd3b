import type {KeyStatus} from '../../keys/status.js';
import {formatAgo, formatCompactDuration, formatCountdown} from '../../format/duration.js';
import {formatLocal, formatUtc} from '../../keys/time.js';

/** When the key-age policy wants the key rotated, or why that is not known. */
function nextRotation(status: KeyStatus, now: Date): string {
	if (status.maxAgeMs === undefined) {
		return 'no policy; set one with `platform-tui config set keyMaxAge 90d`';
	}

	const policy = `keyMaxAge ${formatCompactDuration(status.maxAgeMs)}`;
	if (!status.rotationDueAt) {
		return `unknown (${policy}, but the key's age is not recorded)`;
	}

	const due = new Date(status.rotationDueAt);
	const left = due.getTime() - now.getTime();
	return left > 0
		? `due ${formatUtc(due)}, in ${formatCountdown(left)} (${policy})`
		: `overdue since ${formatUtc(due)} (${formatAgo(-left)}; ${policy}): run \`platform-tui keys rotate\``;
}

/** The columns of `keys show`'s labels: every value starts after them. */
export const labelWidth = 15;

/** The `keys show` text: label, value lines. Never a full key. */
export function statusLines(status: KeyStatus, now: Date): string[] {
	const label = (name: string) => name.padEnd(labelWidth);
	const indent = ' '.repeat(labelWidth);
	const lines: string[] = [];
	if (status.key) {
		const source = status.key.source === 'env'
			? `from PLATFORM_API_KEY${status.storedKeyMasked ? `; it overrides the stored key ${status.storedKeyMasked}` : ''}`
			: `stored in ${status.configPath}`;
		lines.push(`${label('API key')}${status.key.masked} (${source})`);
	} else {
		lines.push(`${label('API key')}not set; store one with \`platform-tui keys set\` or set PLATFORM_API_KEY`);
	}

	if (status.keySetAt && status.ageMs !== undefined) {
		lines.push(`${label('Key age')}${formatCountdown(status.ageMs)} (set ${formatUtc(new Date(status.keySetAt))})`);
	} else if (status.key) {
		lines.push(`${label('Key age')}not recorded (${status.key.source === 'env' ? 'PLATFORM_API_KEY holds a key other than the stored one' : 'stored before ages were kept; `platform-tui keys rotate` starts it'})`);
	}

	lines.push(`${label('Next rotation')}${nextRotation(status, now)}`);

	if (status.lastRotatedAt) {
		const rotated = new Date(status.lastRotatedAt);
		lines.push(`${label('Last rotation')}${formatUtc(rotated)} (${formatAgo(now.getTime() - rotated.getTime())})`);
	} else {
		lines.push(`${label('Last rotation')}none recorded`);
	}

	const previous = status.previousKey;
	if (previous) {
		const expiry = new Date(previous.expiresAt);
		const name = previous.masked ?? 'the previous key';
		if (previous.valid) {
			const local = formatLocal(expiry);
			lines.push(
				`${label('Previous key')}${name} still works until ${formatUtc(expiry)}`,
				...(local === undefined ? [] : [`${indent}${local}`]),
				`${indent}${formatCountdown(previous.remainingMs)} left`,
			);
		} else {
			lines.push(`${label('Previous key')}${name} expired at ${formatUtc(expiry)} (${formatAgo(now.getTime() - expiry.getTime())})`);
		}
	}

	return lines;
}
