/**
 * The flags every command accepts, declared once (gh's inherited flags): output mode, the
 * connection settings and where events are kept. The tokenizer knows them anywhere on the line,
 * before or after the command words; help lists them under INHERITED FLAGS (`--data-dir` and
 * `--redis` only for the commands that keep events, which name them in their own `flags`).
 */
import type {FlagSpec} from './types.js';

export const sharedFlags = {
	json: {type: 'boolean', default: false, description: 'Print NDJSON on stdout (docs/json.md): every line has a type, the last is one result or error'},
	debug: {type: 'boolean', default: false, description: 'Show stack traces and a request log (secrets masked)'},
	baseUrl: {type: 'string', env: 'PLATFORM_BASE_URL', description: 'Platform base address', placeholder: 'URL'},
	appId: {type: 'string', env: 'PLATFORM_APP_ID', description: 'Application id', placeholder: 'ID'},
	userId: {type: 'string', env: 'PLATFORM_USER_ID', description: 'User id', placeholder: 'ID'},
	companyId: {type: 'string', env: 'PLATFORM_COMPANY_ID', description: 'Company id', placeholder: 'ID'},
	assistantId: {type: 'string', env: 'PLATFORM_ASSISTANT_ID', description: 'Space (assistant) id', placeholder: 'ID'},
	model: {type: 'string', env: 'PLATFORM_MODEL', description: 'Chat-completion model', placeholder: 'NAME'},
	help: {type: 'boolean', default: false, shortFlag: 'h'},
	version: {type: 'boolean', default: false, shortFlag: 'v'},
} satisfies Record<string, FlagSpec>;

/** Where serve and the events commands keep events; a command that keeps events lists these in its flags. */
export const storeFlags = {
	dataDir: {type: 'string', env: 'PLATFORM_TUI_DATA_DIR', complete: 'folder', description: 'Where the event journal lives (default: the app\'s data folder)', placeholder: 'DIR'},
	redis: {type: 'string', env: 'PLATFORM_REDIS_URL', description: 'Read the events replicas share in Redis instead', placeholder: 'URL'},
} satisfies Record<string, FlagSpec>;

/** What the tokenizer knows before the command is: these may stand before the command words. */
export const globalFlags: Record<string, FlagSpec> = {...sharedFlags, ...storeFlags};
