/**
 * Key expiry times: the UTC and local wall clock, and ISO 8601 parsing. Countdowns and "ago" come
 * from the format kit (formatCountdown, formatAgo).
 */

function pad(value: number, width = 2): string {
	return String(value).padStart(width, '0');
}

/** `2025-03-01 14:05:09 UTC` */
export function formatUtc(date: Date): string {
	return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} UTC`;
}

/** The local UTC offset of a date, e.g. `UTC+01:00`. */
export function utcOffset(date: Date): string {
	const minutes = -date.getTimezoneOffset();
	const sign = minutes < 0 ? '-' : '+';
	const absolute = Math.abs(minutes);
	return `UTC${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/**
 * `2025-03-01 15:05:09 Europe/Berlin (UTC+01:00)`: the local wall clock, its zone and offset; the
 * date is left out when it is the UTC date. Undefined where local time is UTC, so a time is never
 * printed twice.
 */
export function formatLocal(date: Date): string | undefined {
	if (date.getTimezoneOffset() === 0) {
		return undefined;
	}

	const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
	const sameDay = date.getDate() === date.getUTCDate();
	const day = sameDay ? '' : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} `;
	const clock = `${day}${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
	return zone ? `${clock} ${zone} (${utcOffset(date)})` : `${clock} ${utcOffset(date)}`;
}

/** `2025-03-01 14:05:09 UTC`, followed by the local time in parentheses where that is not UTC. */
export function formatUtcAndLocal(date: Date): string {
	const local = formatLocal(date);
	return local === undefined ? formatUtc(date) : `${formatUtc(date)} (${local})`;
}

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses an ISO 8601 timestamp. A timestamp without a zone is read as UTC (the platform documents
 * UTC). Returns undefined for anything else, including impossible dates such as 2025-02-30.
 */
export function parseIsoTimestamp(value: unknown): Date | undefined {
	if (typeof value !== 'string') {
		return undefined;
	}

	const match = isoPattern.exec(value.trim());
	if (!match) {
		return undefined;
	}

	const [, year, month, day, hour, minute] = match;
	const zone = match[8];
	const normalized = zone ? value.trim() : `${value.trim()}Z`;
	const date = new Date(normalized.replace(' ', 'T'));
	if (Number.isNaN(date.getTime())) {
		return undefined;
	}

	// Reject dates that JavaScript silently rolls over (2025-02-30 → March 2).
	const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute)));
	if (calendar.getUTCFullYear() !== Number(year) || calendar.getUTCMonth() + 1 !== Number(month) || calendar.getUTCDate() !== Number(day)
		|| calendar.getUTCHours() !== Number(hour) || calendar.getUTCMinutes() !== Number(minute)) {
		return undefined;
	}

	return date;
}
