/** Small text helpers for the upload screen and its plain-line output. */

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 0 B, 512 B, 1.5 KiB, 256 KiB, 1.00 GiB. */
export function formatBytes(bytes: number): string {
	let value = Math.max(0, bytes);
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}

	if (unit === 0) {
		return `${Math.round(value)} B`;
	}

	const digits = value >= 100 ? 0 : (value >= 10 ? 1 : 2);
	return `${value.toFixed(digits)} ${units[unit]}`;
}

/** 850 ms, 3.2 s, 1m 05s. */
export function formatElapsed(ms: number): string {
	if (ms < 1000) {
		return `${Math.max(0, Math.round(ms))} ms`;
	}

	if (ms < 60_000) {
		return `${(ms / 1000).toFixed(1)} s`;
	}

	const minutes = Math.floor(ms / 60_000);
	const seconds = Math.floor((ms % 60_000) / 1000);
	return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
}

/** A whole-seconds form for deadlines: 60 s, 0.5 s. */
export function formatSeconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(2))} s`;
}

export function formatRate(bytesPerSecond: number): string {
	return `${formatBytes(bytesPerSecond)}/s`;
}

/** A bar such as `██████░░░░░░ 50%`. */
export function progressBar(sent: number, total: number, width = 20): string {
	const ratio = total > 0 ? Math.min(1, Math.max(0, sent / total)) : 1;
	const filled = Math.round(ratio * width);
	return `${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${String(Math.floor(ratio * 100)).padStart(3)}%`;
}

/** Cuts text to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}
