/** Did-you-mean for commands and flags (gh's habit), by Levenshtein distance (leven). */
import leven from 'leven';

/** The closest candidate within distance 2 (or one that starts with the input), else undefined. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
	let best: {candidate: string; distance: number} | undefined;
	for (const candidate of candidates) {
		const distance = leven(input, candidate, {maxDistance: 3});
		if (distance <= 2 && (!best || distance < best.distance)) {
			best = {candidate, distance};
		}
	}

	if (best) {
		return best.candidate;
	}

	return input.length >= 3 ? candidates.find(candidate => candidate.startsWith(input)) : undefined;
}
