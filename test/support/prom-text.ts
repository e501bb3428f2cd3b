/**
 * A strict parser of the Prometheus text exposition format (0.0.4): HELP and TYPE lines, samples
 * with escaped label values, and the rules a scraper enforces (a TYPE before a family's samples,
 * one TYPE per family, names and label names of the allowed characters, values that are numbers,
 * histogram buckets cumulative with a +Inf bucket equal to _count). Throws on anything else.
 */
export type Sample = {name: string; labels: Record<string, string>; value: number};
export type Family = {name: string; type: string; help: string; samples: Sample[]};

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const types = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(text: string, line: number): number {
	if (text === '+Inf') {
		return Number.POSITIVE_INFINITY;
	}

	if (text === '-Inf') {
		return Number.NEGATIVE_INFINITY;
	}

	// Prometheus reads values with Go's ParseFloat, which takes NaN in any case (prom-client writes
	// `Nan`, e.g. for the event-loop lag before its first sample).
	if (text.toLowerCase() === 'nan') {
		return Number.NaN;
	}

	if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
		throw new Error(`line ${line}: not a number: ${text}`);
	}

	return Number(text);
}

function parseLabels(text: string, line: number): Record<string, string> {
	const labels: Record<string, string> = {};
	let index = 0;
	while (index < text.length) {
		const eq = text.indexOf('=', index);
		if (eq === -1) {
			throw new Error(`line ${line}: label without value`);
		}

		const name = text.slice(index, eq).trim();
		if (!labelName.test(name) || name in labels) {
			throw new Error(`line ${line}: bad or repeated label name ${name}`);
		}

		if (text[eq + 1] !== '"') {
			throw new Error(`line ${line}: label value not quoted`);
		}

		let value = '';
		let cursor = eq + 2;
		for (;;) {
			const char = text[cursor];
			if (char === undefined) {
				throw new Error(`line ${line}: unterminated label value`);
			}

			if (char === '\\') {
				const next = text[cursor + 1];
				if (next === 'n') {
					value += '\n';
				} else if (next === '\\' || next === '"') {
					value += next;
				} else {
					throw new Error(`line ${line}: bad escape \\${next ?? ''}`);
				}

				cursor += 2;
				continue;
			}

			if (char === '"') {
				break;
			}

			value += char;
			cursor++;
		}

		labels[name] = value;
		index = cursor + 1;
		if (text[index] === ',') {
			index++;
		} else if (index < text.length) {
			throw new Error(`line ${line}: expected , between labels`);
		}
	}

	return labels;
}

function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
	for (const suffix of ['', '_bucket', '_count', '_sum', '_total', '_created']) {
		if (suffix === '' || sample.endsWith(suffix)) {
			const base = suffix === '' ? sample : sample.slice(0, -suffix.length);
			const family = families.get(base) ?? (suffix === '_total' ? undefined : undefined);
			if (family) {
				return family;
			}
		}
	}

	return families.get(sample);
}

function checkHistogram(family: Family): void {
	const groups = new Map<string, Sample[]>();
	for (const sample of family.samples.filter(entry => entry.name.endsWith('_bucket'))) {
		const {le, ...rest} = sample.labels;
		if (le === undefined) {
			throw new Error(`${family.name}: bucket without le`);
		}

		const key = JSON.stringify(rest);
		groups.set(key, [...(groups.get(key) ?? []), sample]);
	}

	for (const [key, buckets] of groups) {
		let previous = -1;
		for (const bucket of buckets) {
			if (bucket.value < previous) {
				throw new Error(`${family.name}: buckets not cumulative`);
			}

			previous = bucket.value;
		}

		const inf = buckets.find(bucket => bucket.labels.le === '+Inf');
		const count = family.samples.find(sample => sample.name === `${family.name}_count` && JSON.stringify(sample.labels) === key);
		if (!inf || !count || inf.value !== count.value) {
			throw new Error(`${family.name}: +Inf bucket missing or not equal to _count`);
		}
	}
}

export function parsePrometheusText(text: string): Map<string, Family> {
	const families = new Map<string, Family>();
	const lines = text.split('\n');
	for (const [index, raw] of lines.entries()) {
		const line = index + 1;
		if (raw === '' ) {
			continue;
		}

		if (raw.startsWith('#')) {
			const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
			if (!match) {
				continue;
			}

			const [, kind, name = '', rest = ''] = match;
			if (!metricName.test(name)) {
				throw new Error(`line ${line}: bad metric name ${name}`);
			}

			const family = families.get(name) ?? {name, type: '', help: '', samples: []};
			families.set(name, family);
			if (kind === 'TYPE') {
				if (family.type !== '' || !types.has(rest) || family.samples.length > 0) {
					throw new Error(`line ${line}: bad or repeated TYPE for ${name}`);
				}

				family.type = rest;
			} else {
				family.help = rest;
			}

			continue;
		}

		const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(raw);
		if (!match) {
			throw new Error(`line ${line}: not a sample: ${raw}`);
		}

		const [, name = '', labels = '', value = ''] = match;
		const family = familyOf(name, families);
		if (!family || family.type === '') {
			throw new Error(`line ${line}: sample ${name} before its TYPE`);
		}

		family.samples.push({name, labels: parseLabels(labels, line), value: parseValue(value, line)});
	}

	for (const family of families.values()) {
		if (family.type === 'histogram') {
			checkHistogram(family);
		}
	}

	return families;
}

/** The value of one sample (0 when absent), by name and labels. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
	for (const family of families.values()) {
		for (const sample of family.samples) {
			if (sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) {
				return sample.value;
			}
		}
	}

	return 0;
}
