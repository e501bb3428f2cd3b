/**
 * The one precedence rule for a value that can come from several places: the flag typed on the
 * line > its environment variable > the stored value > the default. The flag and the variable are
 * the ones its declaration names (cli/flags.ts for the settings and the profile, each command's
 * flags for the rest); cli/flag-values.ts, setting resolution (resolve.ts) and the profile
 * selection (profiles.ts) all read through here.
 *
 * A flag typed on the line wins whatever it holds: a blank one is refused by its own check rather
 * than passed over, so `--profile "$P"` with P unset never quietly falls back to another profile.
 * A blank environment variable or stored value counts as unset; those are used trimmed.
 */
export type ValueSource = 'flag' | 'env' | 'stored' | 'default';

export type Layers<Default> = {
	/** The flag's value as typed (undefined when absent). */
	flag?: unknown;
	env?: string | undefined;
	stored?: unknown;
	default?: Default;
};

export type Picked<Default> = {value: unknown; source: Exclude<ValueSource, 'default'>} | {value: Default; source: 'default'};

function filled(value: unknown): string | undefined {
	const text = typeof value === 'string' ? value.trim() : undefined;
	return text === '' ? undefined : text;
}

/** The value that wins and where it came from; undefined when no layer holds one. */
export function pickValue<Default = never>(layers: Layers<Default>): Picked<Default> | undefined {
	if (layers.flag !== undefined) {
		return {value: layers.flag, source: 'flag'};
	}

	const fromEnv = filled(layers.env);
	if (fromEnv !== undefined) {
		return {value: fromEnv, source: 'env'};
	}

	const stored = filled(layers.stored);
	if (stored !== undefined) {
		return {value: stored, source: 'stored'};
	}

	return layers.default === undefined ? undefined : {value: layers.default, source: 'default'};
}
