/**
 * The pictures' core: sparklines (width never exceeded, heights monotone in the value, empty
 * input), the rate buckets (counts land in the bucket of their time, old ones drop out, memory is
 * fixed) and the timeline bar with its labels.
 */
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {addSample, emptySamples, RateSampler, sampleValues} from '../../source/format/rate-samples.js';
import {peak, plainFigures, sparkLevel, sparkline, sparkLevels} from '../../source/format/sparkline.js';
import {spreadLabels, timelineBar, timelinePosition} from '../../source/format/timeline.js';
import {displayWidth} from '../../source/format/width.js';

const counts = fc.array(fc.nat({max: 1_000_000}), {maxLength: 200});

describe('sparkline', () => {
	it('draws one column per value, the newest kept, never wider than asked', () => {
		fc.assert(fc.property(counts, fc.integer({min: -5, max: 300}), (values, width) => {
			const line = sparkline(values, width);
			expect(displayWidth(line)).toBe(Math.min(values.length, Math.max(0, width)));
			expect(line).toMatch(new RegExp(`^[${sparkLevels.join('')}]*$`, 'u'));
		}));
	});

	it('maps a larger value to a bar at least as high, nothing to the lowest and the largest to the highest', () => {
		fc.assert(fc.property(fc.nat({max: 10_000}), fc.nat({max: 10_000}), fc.integer({min: 1, max: 10_000}), (a, b, max) => {
			const [low, high] = a <= b ? [a, b] : [b, a];
			expect(sparkLevel(low, max)).toBeLessThanOrEqual(sparkLevel(high, max));
		}));
		expect(sparkline([0, 1, 50, 100], 10)).toBe('▁▂▅█');
		expect(sparkline([0, 0, 0], 10)).toBe('▁▁▁');
		expect(sparkline([5, 5], 10)).toBe('██');
	});

	it('is empty for no values or no room', () => {
		expect(sparkline([], 10)).toBe('');
		expect(sparkline([1, 2, 3], 0)).toBe('');
		expect(sparkline([1, 2, 3], 2)).toBe('▆█');
	});

	it('scales to a given maximum, so the same figure draws the same height', () => {
		expect(sparkline([10], 5, 100)).toBe('▂');
		expect(sparkline([Number.NaN, -3], 5)).toBe('▁▁');
	});

	it('writes plain figures, the newest kept when they do not all fit', () => {
		expect(plainFigures([0, 3, 12, 7], 40)).toBe('0 3 12 7');
		expect(plainFigures([0, 3, 12, 7], 5)).toBe('12 7');
		expect(plainFigures([], 10)).toBe('');
		fc.assert(fc.property(counts, fc.nat({max: 120}), (values, width) => {
			expect(displayWidth(plainFigures(values, width))).toBeLessThanOrEqual(width);
		}));
		expect(peak([])).toBe(0);
		expect(peak([3, 9, 2])).toBe(9);
	});
});

describe('rate samples', () => {
	it('counts each amount in the bucket of its time, oldest bucket first', () => {
		let samples = emptySamples(1000, 5);
		samples = addSample(samples, 10_100);
		samples = addSample(samples, 10_900, 2);
		samples = addSample(samples, 12_000, 4);
		expect(sampleValues(samples, 12_500)).toEqual([0, 0, 3, 0, 4]);
		expect(sampleValues(samples, 14_000)).toEqual([3, 0, 4, 0, 0]);
		// Past the buckets kept, a bucket is 0 again, and a time older than them is dropped.
		expect(sampleValues(samples, 30_000)).toEqual([0, 0, 0, 0, 0]);
		expect(addSample(samples, 1000)).toBe(samples);
	});

	it('starts a bucket again from 0 when its slot comes round', () => {
		let samples = emptySamples(1000, 3);
		samples = addSample(samples, 0, 5);
		samples = addSample(samples, 3000, 1);
		expect(sampleValues(samples, 3000)).toEqual([0, 0, 1]);
		samples = addSample(samples, 100_000, 2);
		expect(sampleValues(samples, 100_000)).toEqual([0, 0, 2]);
	});

	it('leaves out the buckets before `since`', () => {
		const samples = addSample(emptySamples(1000, 10), 5000, 3);
		expect(sampleValues(samples, 6000, 4500)).toEqual([0, 3, 0]);
		expect(sampleValues(samples, 6000, 7000)).toEqual([]);
	});

	it('keeps the total of what was added within the buckets, whatever the order', () => {
		fc.assert(fc.property(fc.array(fc.tuple(fc.nat({max: 20_000}), fc.integer({min: 1, max: 50})), {maxLength: 100}), adds => {
			let samples = emptySamples(1000, 30);
			for (const [at, amount] of adds) {
				samples = addSample(samples, at, amount);
			}

			const values = sampleValues(samples, 20_000);
			expect(values).toHaveLength(30);
			expect(samples.counts).toHaveLength(30);
			// All times are within the 30 buckets up to 20 s, so nothing is dropped.
			expect(values.reduce((sum, value) => sum + value, 0)).toBe(adds.reduce((sum, [, amount]) => sum + amount, 0));
		}));
	});

	it('reads the time from its clock', () => {
		let time = 0;
		const sampler = new RateSampler({bucketMs: 1000, size: 4, clock: () => time});
		sampler.record();
		time = 1500;
		sampler.record(2);
		sampler.record(1, 500);
		expect(sampler.values()).toEqual([0, 0, 2, 2]);
		expect(sampler.values(1000)).toEqual([2]);
		expect(sampler.valuesAt(0)).toEqual([0, 0, 0, 2]);
	});
});

describe('timeline', () => {
	it('puts now where it is between the start and the end, in exactly the width', () => {
		expect(timelineBar(0, 50, 100, 11)).toBe('━━━━━●─────');
		expect(timelineBar(0, -10, 100, 5)).toBe('●────');
		expect(timelineBar(0, 500, 100, 5)).toBe('━━━━●');
		expect(timelineBar(0, 1, 100, 0)).toBe('');
		fc.assert(fc.property(fc.integer(), fc.integer(), fc.integer(), fc.integer({min: 1, max: 200}), (start, now, end, width) => {
			expect(displayWidth(timelineBar(start, now, end, width))).toBe(width);
			const at = timelinePosition(start, now, end, width);
			expect(at >= 0 && at < width).toBe(true);
		}));
	});

	it('spreads labels to both ends, or puts them on two lines when they do not fit', () => {
		expect(spreadLabels('left', 'right', 12)).toEqual(['left   right']);
		expect(spreadLabels('left side', 'right side', 12)).toEqual(['left side', '  right side']);
		expect(spreadLabels('a much longer label', 'right', 8)).toEqual(['a much …', '   right']);
		fc.assert(fc.property(fc.string(), fc.string(), fc.integer({min: 1, max: 100}), (left, right, width) => {
			for (const line of spreadLabels(left.replaceAll(/\s/g, 'x'), right.replaceAll(/\s/g, 'x'), width)) {
				expect(displayWidth(line)).toBeLessThanOrEqual(width);
			}
		}));
	});
});
