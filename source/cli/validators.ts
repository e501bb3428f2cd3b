/**
 * The shared flag validators. Every bad value reads alike:
 * `--concurrency must be a whole number from 1 to 1000; got "abc".`
 * Number-type flags arrive as the typed strings (the dispatcher reads them as strings), defaults as
 * numbers; so `abc` is shown as typed.
 */
import {formatCompactDuration, parseDuration} from '../format/duration.js';
import {flagRule} from './flag-rule.js';
import {kebab} from './kebab.js';

/** A mistake in how the command was called; the CLI prints the sentence and exits 1. */
export class UsageError extends Error {
	override name = 'UsageError';
	readonly exitCode = 1;
	/** Stable, kebab-case, one per kind of mistake; listed in docs/errors.md. */
	readonly code: string;

	constructor(code: string, message: string) {
		super(message);
		this.code = code;
	}
}

function shown(value: unknown): string {
	return typeof value === 'number' && Number.isNaN(value) ? '"NaN"' : JSON.stringify(String(value));
}

/** What a refused value was, for its sentence: the rule, a value that passes, what was given. */
export type BadValue = {expected: string; value: unknown; example?: string | number};

/** The one sentence of a refused value: `NAME must be RULE, e.g. PASSING; got "value".`, the passing value written as NAME takes it. */
function refusal(name: string, bad: BadValue, passing: (example: string) => string): string {
	return `${name} must be ${bad.expected}${bad.example === undefined ? '' : `, e.g. ${passing(String(bad.example))}`}; got ${shown(bad.value)}.`;
}

/**
 * A flag's value outside its rule. It keeps the parts of its sentence, so the one reader of flags
 * with environment variables (flag-values.ts) can name the variable when the value came from it.
 */
export class FlagValueError extends UsageError {
	override name = 'FlagValueError';
	readonly flag: string;
	readonly bad: BadValue;

	constructor(flag: string, bad: BadValue) {
		super('flag-invalid', refusal(`--${kebab(flag)}`, bad, example => `--${kebab(flag)} ${example}`));
		this.flag = flag;
		this.bad = bad;
	}
}

/** The same refusal for a value the flag's environment variable gave: `PLATFORM_REDIS_URL must be …, e.g. PLATFORM_REDIS_URL=…; got "http://x".` */
export function badEnvValue(env: string, bad: BadValue): UsageError {
	return new UsageError('flag-invalid', refusal(env, bad, example => `${env}=${example}`));
}

/**
 * Throws the one-style sentence for a bad flag value: the rule, a value that passes, what was given.
 * `--concurrency must be a whole number from 1 to 64, e.g. --concurrency 4; got "abc".`
 */
export function badFlag(name: string, expected: string, value: unknown, example?: string | number): never {
	throw new FlagValueError(name, example === undefined ? {expected, value} : {expected, value, example});
}

/** A value in [min, max] to show as passing: the default when it is in range, else the low end. */
function inRange(fallback: number, min: number, max: number): number {
	return fallback >= min && fallback <= max ? fallback : min;
}

const durationExamples: ReadonlyArray<[string, number]> = [['90s', 90_000], ['15m', 900_000], ['24h', 86_400_000], ['7d', 7 * 86_400_000], ['30d', 30 * 86_400_000]];

function rawOf(flags: Record<string, unknown>, name: string): unknown {
	const value = flags[name];
	return Array.isArray(value) ? value.at(-1) : value;
}

/** A whole number in [min, max]; `fallback` when the flag is absent. */
export function intFlag(flags: Record<string, unknown>, name: string, range: {min: number; max: number; fallback: number}): number {
	const raw = rawOf(flags, name);
	if (raw === undefined) {
		return range.fallback;
	}

	const value = typeof raw === 'number' ? raw : (typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : Number.NaN);
	if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
		badFlag(name, flagRule({kind: 'int', min: range.min, max: range.max}), raw, inRange(range.fallback, range.min, range.max));
	}

	return value;
}

/** A TCP port, 0 to 65535 (0 picks a free one). */
export function portFlag(flags: Record<string, unknown>, name: string, fallback: number): number {
	return intFlag(flags, name, {min: 0, max: 65_535, fallback});
}

/** A number of seconds (fractions allowed) in (min, max], returned in milliseconds. */
export function secondsFlag(flags: Record<string, unknown>, name: string, range: {min?: number; max: number; fallbackSeconds: number; allowZero?: boolean}): number {
	const raw = rawOf(flags, name);
	if (raw === undefined) {
		return Math.round(range.fallbackSeconds * 1000);
	}

	const value = typeof raw === 'number' ? raw : (typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN);
	const min = range.min ?? 0;
	const low = range.allowZero ? value >= min : value > min;
	if (!Number.isFinite(value) || !low || value > range.max) {
		const example = range.fallbackSeconds > min && range.fallbackSeconds <= range.max ? range.fallbackSeconds : Math.min(range.max, min + 1);
		badFlag(name, flagRule({kind: 'seconds', min, max: range.max, ...(range.allowZero ? {allowZero: true} : {})}), raw, example);
	}

	return Math.round(value * 1000);
}

/** A duration such as `90s`, `1h30m`, `7d` (or bare seconds), returned in milliseconds. */
export function durationFlag(flags: Record<string, unknown>, name: string, range: {min: number; max: number; fallbackMs: number}): number {
	const raw = rawOf(flags, name);
	if (raw === undefined) {
		return range.fallbackMs;
	}

	const ms = typeof raw === 'string' || typeof raw === 'number' ? parseDuration(String(raw)) : undefined;
	if (ms === undefined || ms < range.min || ms > range.max) {
		const example = durationExamples.find(([, candidate]) => candidate >= range.min && candidate <= range.max)?.[0] ?? formatCompactDuration(inRange(range.fallbackMs, range.min, range.max));
		const read = ms === undefined ? ' (a number and a unit: ms, s, m, h or d)' : '';
		badFlag(name, `${flagRule({kind: 'duration', min: range.min, max: range.max})}${read}`, raw, example);
	}

	return ms;
}

/** An http(s) URL. */
export function urlFlag(flags: Record<string, unknown>, name: string, options: {protocols?: string[]} = {}): string | undefined {
	const raw = rawOf(flags, name);
	if (raw === undefined || raw === '') {
		return undefined;
	}

	const protocols = options.protocols ?? ['http:', 'https:'];
	// The URL parser drops tabs and line breaks before parsing; drop them here too, so the value kept is the one checked.
	const value = typeof raw === 'string' ? raw.trim().replaceAll(/[\t\n\r]/g, '') : '';
	const parsed = URL.canParse(value) ? new URL(value) : undefined;
	if (!parsed || !protocols.includes(parsed.protocol) || !value.toLowerCase().startsWith(`${parsed.protocol}//`)) {
		badFlag(name, flagRule({kind: 'url', protocols}), raw, `${protocols[0] ?? 'http:'}//127.0.0.1:${protocols[0]?.startsWith('redis') ? 6379 : 8080}`);
	}

	return value;
}

/** A comma-separated list of secrets (for rotating a secret, the new one first); none may be empty. */
export function secretListFlag(value: string, name: string): string[] {
	const secrets = value.split(',').map(secret => secret.trim()).filter(secret => secret !== '');
	if (secrets.length === 0) {
		throw new UsageError('flag-invalid', `--${kebab(name)} must name at least one secret (several may be given, comma-separated).`);
	}

	return secrets;
}

/** One of a fixed set of words. */
export function choiceFlag<T extends string>(flags: Record<string, unknown>, name: string, choices: readonly T[]): T | undefined {
	const raw = rawOf(flags, name);
	if (raw === undefined) {
		return undefined;
	}

	if (!choices.includes(raw as T)) {
		badFlag(name, flagRule({kind: 'choice', choices}), raw, choices[0]);
	}

	return raw as T;
}

/** A non-empty string flag, trimmed; undefined when absent. */
export function stringFlag(flags: Record<string, unknown>, name: string): string | undefined {
	const raw = rawOf(flags, name);
	if (raw === undefined) {
		return undefined;
	}

	if (typeof raw !== 'string' || raw.trim() === '') {
		badFlag(name, 'a non-empty value', raw);
	}

	return raw.trim();
}

export function booleanFlag(flags: Record<string, unknown>, name: string): boolean {
	return rawOf(flags, name) === true;
}

/** A repeatable string flag (`isMultiple`): every value, trimmed; an empty one is refused. */
export function stringListFlag(flags: Record<string, unknown>, name: string): string[] {
	const raw = flags[name];
	if (raw === undefined) {
		return [];
	}

	const values = Array.isArray(raw) ? raw as unknown[] : [raw];
	return values.map(value => {
		if (typeof value !== 'string' || value.trim() === '') {
			badFlag(name, 'a non-empty value', value);
		}

		return value.trim();
	});
}
