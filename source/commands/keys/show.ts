import {keyStatus} from '../../keys/status.js';
import {formatCompactDuration} from '../../format/duration.js';
import {formatUtc} from '../../keys/time.js';
import {statusLines} from '../../ui/keys/status-lines.js';
import {overlapLines} from '../../ui/keys/overlap-timeline.js';
import {colorEnabled, terminalColumns} from '../../terminal.js';
import {policyMaxAgeMs} from '../../keys/age-policy.js';
import type {Command} from '../../cli/types.js';
import {noArguments} from '../../cli/define.js';

/**
 * A terminal gets the lines fitted to its width (status-fit.ts, loaded only then); a pipe or a
 * file gets them as they are, one line each.
 */
async function fitting(stdout: {isTTY?: boolean}, json: boolean, columns: number | undefined): Promise<(lines: string[]) => string[]> {
	if (json || stdout.isTTY !== true || columns === undefined) {
		return lines => lines;
	}

	const {fitStatusLines} = await import('../../ui/keys/status-fit.js');
	return lines => fitStatusLines(lines, columns);
}

const command: Command<Record<string, never>> = {
	usage: 'platform-tui keys show [--json]',
	description: 'Show the API key (masked), where it comes from, its age, the next rotation due under keyMaxAge, the last rotation and the previous key\'s remaining overlap',
	flags: {},
	examples: ['platform-tui keys show', 'platform-tui keys show --json'],
	parse(input) {
		noArguments(input, command);

		return {};
	},
	async run(_options, deps) {
		const {context} = deps;
		const now = new Date(deps.clock.now());
		const columns = terminalColumns(context.stdout);
		const fit = await fitting(context.stdout, context.json, columns);
		const maxAgeMs = policyMaxAgeMs(deps.resolved());
		// The status from the run's one read of the config file, the read the policy came from.
		const store = {path: deps.store().path, all: () => deps.stored()};
		const status = keyStatus({env: context.env, store, now: () => now, ...(maxAgeMs === undefined ? {} : {maxAgeMs})});
		deps.output.print({
			type: 'key',
			key: status.key?.masked ?? null,
			source: status.key?.source ?? null,
			storedKey: status.storedKeyMasked ?? null,
			path: status.configPath,
			lastRotatedAt: status.lastRotatedAt ?? null,
			keySetAt: status.keySetAt ?? null,
			ageSeconds: status.ageMs === undefined ? null : Math.floor(status.ageMs / 1000),
			maxAge: status.maxAgeMs === undefined ? null : formatCompactDuration(status.maxAgeMs),
			nextRotationDueAt: status.rotationDueAt ?? null,
			rotationOverdue: status.rotationDueAt === undefined ? null : Date.parse(status.rotationDueAt) <= now.getTime(),
			previousKey: status.previousKey
				? {
					key: status.previousKey.masked ?? null,
					expiresAt: status.previousKey.expiresAt,
					valid: status.previousKey.valid,
					remainingSeconds: Math.ceil(status.previousKey.remainingMs / 1000),
				}
				: null,
		}, () => {
			const overlap = overlapLines(status, now, {pictures: colorEnabled(context.stdout, context.env), ...(columns === undefined ? {} : {columns})});
			return `${[...fit(statusLines(status, now)), ...overlap].join('\n')}\n`;
		});

		if (status.envHoldsPreviousKey && status.previousKey?.valid) {
			context.stderr.write(`Warning: PLATFORM_API_KEY still holds the key that was rotated out; it stops working at ${formatUtc(new Date(status.previousKey.expiresAt))}. Update it to the stored key before then.\n`);
		} else if (status.envHoldsPreviousKey) {
			context.stderr.write('Warning: PLATFORM_API_KEY holds the key that was rotated out and has expired; update it to the stored key.\n');
		}

		return status.key ? 0 : 1;
	},
};

export default command;
