import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {IdFilter} from '../../../source/receiver/journal/records/id-filter.js';

/** Seeded and bounded; `PLATFORM_TUI_FC_SEED` replays a failure (fast-check prints the seed). */
const seed = Number(process.env.PLATFORM_TUI_FC_SEED ?? 20_261_124);

describe('id filter', () => {
	it('never says an added id is new, whatever the ids (property)', () => {
		fc.assert(fc.property(fc.uniqueArray(fc.string({unit: 'binary', minLength: 0, maxLength: 80}), {maxLength: 300}), ids => {
			const filter = new IdFilter();
			for (const id of ids) {
				filter.add(id);
			}

			return ids.every(id => filter.has(id));
		}), {seed, numRuns: 60});
	});

	/** The share of `tries` ids never added that the filter says it may have, with `count` ids in it. */
	function falsePositiveRate(count: number, tries: number): number {
		const filter = new IdFilter();
		for (let index = 0; index < count; index++) {
			filter.add(`evt_${index.toString(16).padStart(24, '0')}`);
		}

		expect(filter.added).toBe(count);
		let falsePositives = 0;
		for (let index = 0; index < tries; index++) {
			if (filter.has(`evt_other_${index}`)) {
				falsePositives++;
			}
		}

		return falsePositives / tries;
	}

	it('says most other ids are new: the false-positive rates its comment states', () => {
		// Theory for 2^23 bits and 7 probes: 2·10⁻⁶ at 200 000 ids, 3·10⁻⁴ at 500 000, 1.9 % at 1 000 000.
		expect(falsePositiveRate(200_000, 100_000)).toBeLessThan(0.0001);
		expect(falsePositiveRate(500_000, 100_000)).toBeLessThan(0.001);
		expect(falsePositiveRate(1_000_000, 100_000)).toBeLessThan(0.03);
	});
});
