/**
 * Reads every flag of a command from its declaration: the value typed on the line, else the
 * declaration's environment variable, else its default; checked against the declaration's range
 * with the shared validators (validators.ts), so a bad value names the rule and a value that passes.
 */
import {pickValue, type Picked} from '../config/precedence.js';
import type {CommandInput} from '../context.js';
import {flagRule} from './flag-rule.js';
import type {FlagRange, FlagSpec} from './flag-spec.js';
import {badEnvValue, badFlag, booleanFlag, FlagValueError, choiceFlag, durationFlag, intFlag, secondsFlag, stringFlag, stringListFlag, urlFlag} from './validators.js';

type Ranged<Kind extends string> = {range: {kind: Kind}};

/** What a flag reads as: a boolean, a list for a repeatable flag, a number for a numeric range, else a string. */
type Value<S extends FlagSpec> = S extends {type: 'boolean'} ? boolean
	: S extends {isMultiple: true} ? string[]
		: S extends {range: {kind: 'choice'; choices: ReadonlyArray<infer Choice>}} ? Choice
		: S extends Ranged<'int' | 'number' | 'seconds' | 'duration'> ? number
			: S extends {type: 'number'} ? number
				: string;

/** A flag with a default (or a boolean, or a list) always has a value. */
type Absent<S extends FlagSpec> = S extends {default: unknown} | {type: 'boolean'} | {isMultiple: true} ? never : undefined;

export type FlagValues<F extends Record<string, FlagSpec>> = {[K in keyof F]: Value<F[K]> | Absent<F[K]>};

/** The flag's raw value, else its environment variable's, else its default: the one rule (config/precedence.ts). */
function rawValue(spec: FlagSpec, name: string, input: Pick<CommandInput, 'flags' | 'env'>): Picked<FlagSpec['default']> | undefined {
	return pickValue({flag: input.flags[name], env: spec.env === undefined ? undefined : input.env[spec.env], default: spec.default});
}

function numberIn(raw: unknown, name: string, range: FlagRange & {kind: 'number'}): number {
	const value = typeof raw === 'number' ? raw : (typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : Number.NaN);
	const low = range.aboveMin ? value > range.min : value >= range.min;
	if (!Number.isFinite(value) || !low || value > range.max) {
		badFlag(name, flagRule(range), raw, range.example);
	}

	return value;
}

function aNumber(raw: unknown, name: string): number {
	const value = typeof raw === 'number' ? raw : (typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : Number.NaN);
	if (!Number.isFinite(value)) {
		badFlag(name, 'a number', raw, 1);
	}

	return value;
}

/**
 * One flag's value, checked against its declared range. A refused value is named where it came
 * from: the flag when typed, its environment variable when that gave it.
 */
export function readFlag(spec: FlagSpec, name: string, input: Pick<CommandInput, 'flags' | 'env'>): unknown {
	const picked = rawValue(spec, name, input);
	try {
		return checked(spec, name, picked?.value);
	} catch (error) {
		if (picked?.source === 'env' && spec.env !== undefined && error instanceof FlagValueError && error.flag === name) {
			throw badEnvValue(spec.env, error.bad);
		}

		throw error;
	}
}

/** A value of the flag (from wherever it came) checked against the flag's declared range. */
function checked(spec: FlagSpec, name: string, raw: unknown): unknown {
	const one = {[name]: raw};
	if (spec.type === 'boolean') {
		return booleanFlag(one, name);
	}

	if (spec.isMultiple) {
		return stringListFlag(one, name);
	}

	if (raw === undefined) {
		return undefined;
	}

	const fallback = typeof spec.default === 'number' ? spec.default : undefined;
	const {range} = spec;
	switch (range?.kind) {
		case 'int': {
			return intFlag(one, name, {min: range.min, max: range.max, fallback: fallback ?? range.example ?? range.min});
		}

		case 'number': {
			return numberIn(raw, name, fallback === undefined ? range : {...range, example: fallback});
		}

		case 'seconds': {
			return secondsFlag(one, name, {...range, fallbackSeconds: fallback ?? range.example ?? range.max});
		}

		case 'duration': {
			return durationFlag(one, name, {min: range.min, max: range.max, fallbackMs: range.min});
		}

		case 'url': {
			return urlFlag(one, name, {protocols: [...range.protocols]});
		}

		case 'choice': {
			return choiceFlag(one, name, range.choices);
		}

		case 'text': {
			return typeof raw === 'string' ? raw : badFlag(name, 'text', raw);
		}

		case 'check': {
			const given = stringFlag(one, name) ?? '';
			const value = range.normalize ? range.normalize(given) : given;
			if (!range.test(value)) {
				badFlag(name, range.rule, raw, range.example);
			}

			return value;
		}

		case undefined: {
			return spec.type === 'number' ? aNumber(raw, name) : stringFlag(one, name);
		}
	}
}

/** Every declared flag's value (flag > environment variable > default), each checked against its range. */
export function readFlags<F extends Record<string, FlagSpec>>(specs: F, input: Pick<CommandInput, 'flags' | 'env'>): FlagValues<F> {
	const values: Record<string, unknown> = {};
	for (const [name, spec] of Object.entries(specs)) {
		values[name] = readFlag(spec, name, input);
	}

	return values as FlagValues<F>;
}
