/**
 * A counter with one label and a histogram for the per-delivery path, kept as plain numbers and
 * turned into samples only when /metrics is scraped. prom-client's own `inc` and `observe` build a
 * closure, check the labels and hash them into a string key on every call, even through a child
 * made once with `labels()`; on the receiver's hot path that measured about 7 % of serve's CPU per
 * delivery. Here a delivery costs an array write.
 *
 * Both are registered in a prom-client `Registry` (`register`) and exposed by it like its own
 * metrics, in the same text format with the same `# HELP` and `# TYPE` lines. Two differences from
 * prom-client's own: every label set is exposed from the start (at 0 until counted; prom-client
 * shows a label set once it was first used), and `reset()` sets the numbers back to 0 rather than
 * dropping the label sets.
 */
import type {Metric, Registry} from 'prom-client';

type Sample = {value: number; labels: Record<string, string | number>; metricName?: string};
type Snapshot = {name: string; help: string; type: string; aggregator: 'sum'; values: Sample[]};

/** What prom-client's registry reads of a metric (it awaits `get()`, so a plain value serves). */
type Exposed = {name: string; help: string; type: string; aggregator: 'sum'; get(): Snapshot; reset(): void};

function register(registry: Registry, metric: Exposed): void {
	// The registry reads only name, help, type, aggregator, get() and reset(); its type names its
	// own four classes, hence the cast.
	registry.registerMetric(metric as unknown as Metric);
}

/** A counter over label sets known up front (a delivery's outcome; an event's type and status). */
export class TableCounter implements Exposed {
	readonly type = 'counter';
	readonly aggregator = 'sum';
	private readonly counts: Float64Array;

	constructor(readonly name: string, readonly help: string, private readonly labelSets: ReadonlyArray<Record<string, string>>, registry: Registry) {
		this.counts = new Float64Array(labelSets.length);
		register(registry, this);
	}

	/** Adds one to the label set at `slot` (its index in the constructor's list). */
	inc(slot: number): void {
		this.counts[slot] = (this.counts[slot] ?? 0) + 1;
	}

	get(): Snapshot {
		return {name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.labelSets.map((labels, slot) => ({value: this.counts[slot] ?? 0, labels: {...labels}}))};
	}

	reset(): void {
		this.counts.fill(0);
	}
}

/** A histogram (seconds) with optional constant labels; buckets in ascending order. */
export class TableHistogram implements Exposed {
	readonly type = 'histogram';
	readonly aggregator = 'sum';
	private readonly bounds: Float64Array;
	/** Observations per bucket (not cumulative); the last slot is above every bound. */
	private readonly counts: Float64Array;
	private sum = 0;
	private count = 0;

	constructor(readonly name: string, readonly help: string, buckets: readonly number[], registry: Registry, private readonly labels: Record<string, string> = {}) {
		this.bounds = Float64Array.from(buckets);
		this.counts = new Float64Array(buckets.length + 1);
		register(registry, this);
	}

	observe(value: number): void {
		const {bounds} = this;
		let slot = 0;
		while (slot < bounds.length && value > (bounds[slot] ?? 0)) {
			slot++;
		}

		this.counts[slot] = (this.counts[slot] ?? 0) + 1;
		this.sum += value;
		this.count++;
	}

	get(): Snapshot {
		const values: Sample[] = [];
		let cumulative = 0;
		for (const [slot, bound] of this.bounds.entries()) {
			cumulative += this.counts[slot] ?? 0;
			values.push({value: cumulative, labels: {le: bound, ...this.labels}, metricName: `${this.name}_bucket`});
		}

		values.push(
			{value: this.count, labels: {le: '+Inf', ...this.labels}, metricName: `${this.name}_bucket`},
			{value: this.sum, labels: {...this.labels}, metricName: `${this.name}_sum`},
			{value: this.count, labels: {...this.labels}, metricName: `${this.name}_count`},
		);
		return {name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values};
	}

	reset(): void {
		this.counts.fill(0);
		this.sum = 0;
		this.count = 0;
	}
}
