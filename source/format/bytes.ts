/** Byte counts as people read them. */

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `0 B`, `512 B`, `1.50 KiB`, `256 KiB`, `1.00 GiB`. */
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
	return `${value.toFixed(digits)} ${units[unit] ?? ''}`;
}

/** `1.20 MiB/s`. */
export function formatRate(bytesPerSecond: number): string {
	return `${formatBytes(bytesPerSecond)}/s`;
}
