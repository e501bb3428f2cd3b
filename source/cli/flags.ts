/**
 * The flags every command accepts, declared once (gh's inherited flags): output mode, the
 * connection settings and where events are kept. The tokenizer knows them anywhere on the line,
 * before or after the command words; help lists them under INHERITED FLAGS (`--data-dir` and
 * `--redis` only for the commands that keep events, which name them in their own `flags`).
 */
import {isProfileName, profileEnv, profileNameRule} from '../config/profiles.js';
import {settingSpecs, type SettingName} from '../config/settings.js';
import {parseRedisTarget} from '../receiver/redis/target.js';
import type {FlagRange, FlagSpec} from './flag-spec.js';

/**
 * A connection flag from its setting (config/settings.ts): the environment variable and help are the
 * setting's own, so `config`, resolution (flag > env > stored, config/resolve.ts) and help agree.
 */
function connection(name: SettingName, placeholder: string): FlagSpec & {type: 'string'; env: string} {
	const {env, description} = settingSpecs[name];
	return {type: 'string', env, description, placeholder};
}

/** The settings a flag may give, each declared from its setting; the keys are the settings' names. */
export const connectionFlags = {
	baseUrl: connection('baseUrl', 'URL'),
	appId: connection('appId', 'ID'),
	userId: connection('userId', 'ID'),
	companyId: connection('companyId', 'ID'),
	assistantId: connection('assistantId', 'ID'),
	model: connection('model', 'NAME'),
} satisfies Partial<Record<SettingName, FlagSpec>>;

/** What a profile name may be (config/profiles.ts). */
export const profileNameRange = {kind: 'check', test: isProfileName, rule: profileNameRule, example: 'staging'} satisfies FlagRange;

/** The profile of the config file a run reads and writes (config/profiles.ts). */
const profileFlag = {
	type: 'string',
	env: profileEnv,
	complete: 'profile',
	range: profileNameRange,
	description: 'Use this profile of the config file: its settings and key (default: the one `config use` chose, else "default")',
	placeholder: 'NAME',
} satisfies FlagSpec;

export const sharedFlags = {
	json: {type: 'boolean', default: false, description: 'Print NDJSON on stdout (docs/json.md): every line has a type, the last is one result or error'},
	debug: {type: 'boolean', default: false, description: 'Show stack traces and a request log (secrets masked)'},
	profile: profileFlag,
	...connectionFlags,
	help: {type: 'boolean', default: false, shortFlag: 'h'},
	version: {type: 'boolean', default: false, shortFlag: 'v'},
} satisfies Record<string, FlagSpec>;

/**
 * A Redis address: redis:// or rediss://, or a Cluster's or Sentinel's (redis+cluster://,
 * redis+sentinel:// and their TLS forms). The URL parser drops tabs and line breaks; so does the
 * value kept.
 */
const redisUrl = {
	kind: 'check',
	test: value => parseRedisTarget(value) !== undefined,
	normalize: value => value.replaceAll(/[\t\n\r]/g, ''),
	rule: 'a URL starting with redis:// or rediss:// (redis+cluster://host:port,host:port or redis+sentinel://host:port,host:port/mastername for a Cluster or Sentinel)',
	example: 'redis://127.0.0.1:6379',
} satisfies FlagRange;

/** Where serve and the events commands keep events; a command that keeps events lists these in its flags. */
export const storeFlags = {
	dataDir: {type: 'string', env: 'PLATFORM_TUI_DATA_DIR', complete: 'folder', description: 'Where the event journal lives (default: the app\'s data folder)', placeholder: 'DIR'},
	redis: {type: 'string', env: 'PLATFORM_REDIS_URL', range: redisUrl, description: 'Read the events replicas share in Redis instead', placeholder: 'URL'},
} satisfies Record<string, FlagSpec>;

/** What the tokenizer knows before the command is: these may stand before the command words. */
export const globalFlags: Record<string, FlagSpec> = {...sharedFlags, ...storeFlags};

/**
 * How much a long command prints, declared once for the commands that honour them (upload, check):
 * `-q` as rclone's and gh's users expect it, only the result and errors; `--stats` as rclone's, a
 * one-line summary every so often in plain output (0 turns it off).
 */
export const outputFlags = {
	quiet: {type: 'boolean', default: false, shortFlag: 'q', description: 'Print only the result and errors: no progress, no plan, no summaries'},
	stats: {type: 'string', default: '5s', range: {kind: 'duration', min: 0, max: 86_400_000}, description: 'In plain output, print a one-line progress summary this often on long runs (0 turns it off)', placeholder: 'DURATION'},
} satisfies Record<string, FlagSpec>;
