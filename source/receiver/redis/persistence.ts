/**
 * Whether Redis keeps its data across its own restart: AOF (`appendonly yes`) or RDB snapshots (a
 * `save` schedule). Without either, a Redis restart or wipe loses every acknowledged event still
 * in it. Checked once when serve opens the backend, through `CONFIG GET`; a managed Redis that
 * renames or forbids CONFIG gives `unknown` with the reason, never a failure.
 */
import type {Redis} from 'ioredis';
import {errorMessage} from '../../format/index.js';
import type {StoreDurability} from '../backend.js';

/** The value of one setting from a CONFIG GET reply (`[name, value]`), or undefined when it is not there. */
function configValue(reply: unknown, name: string): string | undefined {
	if (!Array.isArray(reply)) {
		return undefined;
	}

	const index = reply.findIndex(item => String(item).toLowerCase() === name);
	const value: unknown = index === -1 ? undefined : reply[index + 1];
	return typeof value === 'string' ? value : (Buffer.isBuffer(value) ? value.toString('utf8') : undefined);
}

export async function checkPersistence(client: Redis): Promise<StoreDurability> {
	let appendonly: string | undefined;
	let save: string | undefined;
	try {
		appendonly = configValue(await client.call('CONFIG', 'GET', 'appendonly'), 'appendonly');
		save = configValue(await client.call('CONFIG', 'GET', 'save'), 'save');
	} catch (error) {
		return {state: 'unknown', reason: `CONFIG GET was refused: ${errorMessage(error)}`};
	}

	if (appendonly === undefined || save === undefined) {
		return {state: 'unknown', reason: 'CONFIG GET did not name appendonly and save'};
	}

	const aof = appendonly.toLowerCase() === 'yes';
	const snapshots = save.trim() !== '';
	if (aof || snapshots) {
		return {state: 'persistent', detail: [aof ? 'AOF (appendonly yes)' : '', snapshots ? `RDB snapshots (save ${save.trim()})` : ''].filter(Boolean).join(' and ')};
	}

	return {state: 'volatile', detail: 'appendonly no, save ""'};
}
