/** Every domain's wording table, merged: one lookup by error code (error-message.ts asks it). */
import {configMessages} from './config.js';
import {fixtureMessages} from './fixture.js';
import {journalMessages} from './journal.js';
import {keysMessages} from './keys.js';
import {localMessages} from './local.js';
import {platformMessages} from './platform.js';
import {privacyMessages} from './privacy.js';
import {receiverMessages} from './receiver.js';
import {redisMessages} from './redis.js';
import type {ErrorWording, MessageTable} from './types.js';
import {workflowMessages} from './workflow.js';

export type {ErrorWording, MessageTable} from './types.js';

export const errorTables: readonly MessageTable[] = [platformMessages, configMessages, keysMessages, workflowMessages, receiverMessages, journalMessages, redisMessages, localMessages, fixtureMessages, privacyMessages];

/** The wording for `code`, or undefined when no table knows it. */
export function wordingFor(code: string, data: Record<string, unknown>): ErrorWording | undefined {
	for (const table of errorTables) {
		if (Object.hasOwn(table, code)) {
			return table[code]?.(data);
		}
	}

	return undefined;
}
