/** Every duration the tool prints or reads: one module, one function per style. */

function pad(value: number, width = 2): string {
	return String(value).padStart(width, '0');
}

/** `850 ms`, `3.2 s`, `1 min 05 s`, `1 h 02 min`: how long something took (the countdown's units past a minute). */
export function formatElapsed(ms: number): string {
	if (ms < 1000) {
		return `${Math.max(0, Math.round(ms))} ms`;
	}

	if (ms < 60_000) {
		return `${(ms / 1000).toFixed(1)} s`;
	}

	return formatCountdown(Math.floor(ms / 1000) * 1000);
}

/** `60 s`, `0.5 s`, `1.25 s`: a configured limit or deadline, to two decimals at most. */
export function formatSeconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(2))} s`;
}

/** `850 ms` below ten seconds, else `12 s` or `12.5 s`: a short latency for one row. */
export function formatMs(ms: number): string {
	if (ms < 10_000) {
		return `${Math.round(ms)} ms`;
	}

	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * A countdown such as `2 d 3 h`, `4 h 05 min`, `12 min 30 s` or `45 s`: two units at most, whole
 * seconds rounded up so a countdown reaches `0 s` only when the time is up.
 */
export function formatCountdown(ms: number): string {
	const total = Math.max(0, Math.ceil(ms / 1000));
	const days = Math.floor(total / 86_400);
	const hours = Math.floor((total % 86_400) / 3600);
	const minutes = Math.floor((total % 3600) / 60);
	const seconds = total % 60;
	if (days > 0) {
		return `${days} d ${hours} h`;
	}

	if (hours > 0) {
		return `${hours} h ${pad(minutes)} min`;
	}

	if (minutes > 0) {
		return `${minutes} min ${pad(seconds)} s`;
	}

	return `${seconds} s`;
}

/** `3 h 02 min ago`, or `just now` within a second. */
export function formatAgo(ms: number): string {
	return ms < 1000 ? 'just now' : `${formatCountdown(ms)} ago`;
}

const durationUnits = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const;

/** The compact form a duration flag takes: `24h`, `1m30s`, `500ms`. `parseDuration` reads it back. */
export function formatCompactDuration(ms: number): string {
	if (ms < 1000) {
		return `${Math.round(ms)}ms`;
	}

	const parts: string[] = [];
	let rest = Math.round(ms);
	for (const [unit, size] of durationUnits) {
		const count = Math.floor(rest / size);
		if (count > 0) {
			parts.push(`${count}${unit}`);
			rest -= count * size;
		}
	}

	if (rest > 0) {
		parts.push(`${rest}ms`);
	}

	return parts.join('');
}

const unitMs: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000};

/**
 * Reads a duration such as `90s`, `500ms`, `1h30m`, `7d` or a bare number of seconds (`30`, `1.5`).
 * Returns undefined for anything else (no sign, no empty parts, no unknown unit).
 */
export function parseDuration(text: string): number | undefined {
	const trimmed = text.trim().toLowerCase();
	if (/^\d+(?:\.\d+)?$/.test(trimmed)) {
		return Math.round(Number(trimmed) * 1000);
	}

	const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
	let total = 0;
	let matched = 0;
	for (const match of trimmed.matchAll(pattern)) {
		total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? Number.NaN);
		matched += match[0].length;
	}

	if (trimmed === '' || matched !== trimmed.length || !Number.isFinite(total)) {
		return undefined;
	}

	return Math.round(total);
}
