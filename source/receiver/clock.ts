/**
 * The receiver's clock: ISO 8601 time stamps computed once per millisecond (every receiver event
 * and every stored event carries one), and the way back from such a stamp to its milliseconds
 * without parsing it again.
 */

let lastIsoMs = 0;
let lastIso = new Date(0).toISOString();

/** `ms` (default: now) as ISO 8601; one Date per millisecond, however many deliveries share it. */
export function isoNow(ms = Date.now()): string {
	if (ms !== lastIsoMs) {
		lastIsoMs = ms;
		lastIso = new Date(ms).toISOString();
	}

	return lastIso;
}

/** The milliseconds of an ISO 8601 stamp (the last one `isoNow` made is known; any other is parsed); NaN when unreadable. */
export function isoMs(iso: string): number {
	return iso === lastIso ? lastIsoMs : Date.parse(iso);
}
