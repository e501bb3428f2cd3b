import leven from 'leven';

/** How many close ids a refusal of an unknown one offers. */
export const nearCount = 5;

/**
 * How far `id` is from `candidate`: their edit distance, or, for an id shorter than the candidate
 * (the start of one, typed from a table), the distance to the candidate's start of that length.
 */
function distanceTo(id: string, candidate: string): number {
	const whole = leven(id, candidate);
	return id.length < candidate.length ? Math.min(whole, leven(id, candidate.slice(0, id.length))) : whole;
}

/** The known ids closest to `id` (at most `count`, within a third of its length), closest first. */
export function nearIds(id: string, known: Iterable<string>, count = nearCount): string[] {
	const limit = Math.max(2, Math.floor(id.length / 3));
	const scored: Array<{id: string; distance: number}> = [];
	for (const candidate of known) {
		const distance = distanceTo(id, candidate);
		if (distance <= limit) {
			scored.push({id: candidate, distance});
		}
	}

	return scored.sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id)).slice(0, count).map(entry => entry.id);
}
