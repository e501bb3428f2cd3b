/**
 * The flags every command accepts, declared once (gh's inherited flags): output mode, the
 * connection settings and where events are kept. The tokenizer knows them anywhere on the line,
 * before or after the command words; help lists them under INHERITED FLAGS (`--data-dir` and
 * `--redis` only for the commands that keep events, which name them in their own `flags`).
 */
import {settingSpecs, type SettingName} from '../config/settings.js';
import type {FlagSpec} from './types.js';

/**
 * A connection flag from its setting (config/settings.ts): the environment variable and help are the
 * setting's own, so `config`, resolution (flag > env > stored, config/resolve.ts) and help agree.
 */
function connection(name: SettingName, placeholder: string): FlagSpec & {type: 'string'; env: string} {
	const {env, description} = settingSpecs[name];
	return {type: 'string', env, description, placeholder};
}

export const sharedFlags = {
	json: {type: 'boolean', default: false, description: 'Print NDJSON on stdout (docs/json.md): every line has a type, the last is one result or error'},
	debug: {type: 'boolean', default: false, description: 'Show stack traces and a request log (secrets masked)'},
	baseUrl: connection('baseUrl', 'URL'),
	appId: connection('appId', 'ID'),
	userId: connection('userId', 'ID'),
	companyId: connection('companyId', 'ID'),
	assistantId: connection('assistantId', 'ID'),
	model: connection('model', 'NAME'),
	help: {type: 'boolean', default: false, shortFlag: 'h'},
	version: {type: 'boolean', default: false, shortFlag: 'v'},
} satisfies Record<string, FlagSpec>;

/** Where serve and the events commands keep events; a command that keeps events lists these in its flags. */
export const storeFlags = {
	dataDir: {type: 'string', env: 'PLATFORM_TUI_DATA_DIR', complete: 'folder', description: 'Where the event journal lives (default: the app\'s data folder)', placeholder: 'DIR'},
	redis: {type: 'string', env: 'PLATFORM_REDIS_URL', range: {kind: 'url', protocols: ['redis:', 'rediss:']}, description: 'Read the events replicas share in Redis instead', placeholder: 'URL'},
} satisfies Record<string, FlagSpec>;

/** What the tokenizer knows before the command is: these may stand before the command words. */
export const globalFlags: Record<string, FlagSpec> = {...sharedFlags, ...storeFlags};
