import {Histogram, Registry} from 'prom-client';
import {describe, expect, it} from 'vitest';
import {TableCounter, TableHistogram} from '../../../source/receiver/ops/metric-tables.js';
import {parsePrometheusText, sampleValue} from '../../support/prom-text.js';

const buckets = [0.001, 0.01, 0.1];

describe('metric tables', () => {
	it('expose a histogram exactly as prom-client\'s own does for the same observations', async () => {
		const ours = new Registry();
		const theirs = new Registry();
		const table = new TableHistogram('latency_seconds', 'Latency', buckets, ours, {backend: 'journal'});
		const reference = new Histogram({name: 'latency_seconds', help: 'Latency', labelNames: ['backend'], buckets, registers: [theirs]});
		// On a bound (le is inclusive), between bounds, above every bound, zero.
		for (const value of [0.001, 0.0005, 0.01, 0.05, 0.1, 7, 0, 0.0011]) {
			table.observe(value);
			reference.labels('journal').observe(value);
		}

		expect(await ours.metrics()).toBe(await theirs.metrics());
		const families = parsePrometheusText(await ours.metrics());
		expect(sampleValue(families, 'latency_seconds_bucket', {backend: 'journal', le: '0.001'})).toBe(3);
		expect(sampleValue(families, 'latency_seconds_bucket', {backend: 'journal', le: '+Inf'})).toBe(8);
		expect(sampleValue(families, 'latency_seconds_count', {backend: 'journal'})).toBe(8);
	});

	it('expose every label set of a counter, zero until counted, and reset with the registry', async () => {
		const registry = new Registry();
		const counter = new TableCounter('deliveries_total', 'Deliveries', [{outcome: 'accepted'}, {outcome: 'busy'}], registry);
		counter.inc(1);
		counter.inc(1);
		let families = parsePrometheusText(await registry.metrics());
		expect(families.get('deliveries_total')?.type).toBe('counter');
		expect(sampleValue(families, 'deliveries_total', {outcome: 'accepted'})).toBe(0);
		expect(sampleValue(families, 'deliveries_total', {outcome: 'busy'})).toBe(2);
		registry.resetMetrics();
		families = parsePrometheusText(await registry.metrics());
		expect(sampleValue(families, 'deliveries_total', {outcome: 'busy'})).toBe(0);
	});
});
