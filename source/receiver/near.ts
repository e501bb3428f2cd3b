import leven from 'leven';

/** How many close ids a refusal of an unknown one offers. */
export const nearCount = 5;

/** The known ids closest to `id` (at most `count`, within a third of its length), closest first. */
export function nearIds(id: string, known: Iterable<string>, count = nearCount): string[] {
	const limit = Math.max(2, Math.floor(id.length / 3));
	const scored: Array<{id: string; distance: number}> = [];
	for (const candidate of known) {
		const distance = leven(id, candidate);
		if (distance <= limit) {
			scored.push({id: candidate, distance});
		}
	}

	return scored.sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id)).slice(0, count).map(entry => entry.id);
}
