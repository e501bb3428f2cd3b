/** The key suites' store: a config store in a fresh folder of its own, and the environment naming it. */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {ConfigStore} from '../../source/config/store.js';

export function freshStore(): {store: ConfigStore; env: NodeJS.ProcessEnv} {
	const env: NodeJS.ProcessEnv = {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'platform-tui-keys-'))};
	return {store: new ConfigStore(env), env};
}
