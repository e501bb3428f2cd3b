import {ConfigStore} from '../../config/store.js';
import {keyStatus} from '../../keys/status.js';
import {formatUtc} from '../../keys/time.js';
import {statusLines} from '../../ui/keys/status-lines.js';
import {writeJson} from '../shared.js';
import type {CommandModule} from '../legacy-types.js';

const command: CommandModule = {
	usage: 'platform-tui keys show [--json]',
	description: 'Show the API key (masked), where it comes from, the last rotation and the previous key\'s expiry',
	flags: {},
	examples: ['platform-tui keys show', 'platform-tui keys show --json'],
	async run(context) {
		const now = new Date();
		const store = new ConfigStore(context.env);
		const status = keyStatus({env: context.env, store, now: () => now});
		if (context.json) {
			writeJson(context, {
				type: 'key',
				key: status.key?.masked ?? null,
				source: status.key?.source ?? null,
				storedKey: status.storedKeyMasked ?? null,
				path: status.configPath,
				lastRotatedAt: status.lastRotatedAt ?? null,
				previousKey: status.previousKey
					? {
						key: status.previousKey.masked ?? null,
						expiresAt: status.previousKey.expiresAt,
						valid: status.previousKey.valid,
						remainingSeconds: Math.ceil(status.previousKey.remainingMs / 1000),
					}
					: null,
			});
		} else {
			context.stdout.write(`${statusLines(status, now).join('\n')}\n`);
		}

		if (status.envHoldsPreviousKey && status.previousKey?.valid) {
			context.stderr.write(`Warning: PLATFORM_API_KEY still holds the key that was rotated out; it stops working at ${formatUtc(new Date(status.previousKey.expiresAt))}. Update it to the stored key before then.\n`);
		} else if (status.envHoldsPreviousKey) {
			context.stderr.write('Warning: PLATFORM_API_KEY holds the key that was rotated out and has expired; update it to the stored key.\n');
		}

		return status.key ? 0 : 1;
	},
};

export default command;
