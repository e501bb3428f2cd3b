import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {IdFilter} from '../../source/receiver/journal/id-filter.js';

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

	it('says most other ids are new: under 0.1 % false positives with 200 000 ids in it', () => {
		const filter = new IdFilter();
		for (let index = 0; index < 200_000; index++) {
			filter.add(`evt_${index.toString(16).padStart(24, '0')}`);
		}

		let falsePositives = 0;
		const tries = 100_000;
		for (let index = 0; index < tries; index++) {
			if (filter.has(`evt_other_${index}`)) {
				falsePositives++;
			}
		}

		expect(falsePositives / tries).toBeLessThan(0.001);
	});
});
