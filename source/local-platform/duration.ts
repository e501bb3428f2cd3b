const unitMs: Record<string, number> = {
	ms: 1,
	s: 1000,
	m: 60_000,
	h: 3_600_000,
	d: 86_400_000,
};

/**
 * Parses a duration such as `24h`, `90s`, `500ms`, `1h30m` or `1.5h` into milliseconds.
 * A unit is required for every number (so `90` alone is rejected rather than guessed).
 */
export function parseDuration(text: string): number {
	const trimmed = text.trim().toLowerCase();
	const part = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/gy;
	let total = 0;
	let consumed = 0;
	let match: RegExpExecArray | null;
	while ((match = part.exec(trimmed)) !== null) {
		total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? Number.NaN);
		consumed = part.lastIndex;
	}

	if (trimmed === '' || consumed !== trimmed.length || !Number.isFinite(total)) {
		throw new TypeError(`Invalid duration "${text}": use a number with a unit, e.g. 24h, 90s, 500ms or 1h30m`);
	}

	return Math.round(total);
}

/** A short human form of a duration in milliseconds, e.g. `24h`, `1m30s`, `500ms`. */
export function formatDuration(ms: number): string {
	if (ms < 1000) {
		return `${ms}ms`;
	}

	const parts: string[] = [];
	let rest = Math.round(ms);
	for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
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
