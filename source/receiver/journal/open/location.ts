/** Where the journal lives: the data directory of the app unless one is named. */
import path from 'node:path';
import envPaths from 'env-paths';

/** `PLATFORM_TUI_DATA_DIR`, else the platform's usual data folder for the app (env-paths). */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
	const named = env.PLATFORM_TUI_DATA_DIR?.trim();
	return named ? path.resolve(named) : envPaths('platform-tui', {suffix: ''}).data;
}

/** The LMDB environment's folder inside a data directory (`data.mdb` and `lock.mdb` live there). */
export function journalDirectory(dataDirectory: string): string {
	return path.join(dataDirectory, 'journal');
}
