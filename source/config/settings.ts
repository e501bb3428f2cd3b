/** The settings platform-tui knows, with their env var, flag and how a user stores them. */
import {parseDuration} from '../format/duration.js';
import type {ValueSource} from './precedence.js';

export const settingNames = [
	'baseUrl',
	'apiKey',
	'appId',
	'userId',
	'companyId',
	'assistantId',
	'endpointSecret',
	'model',
	'keyMaxAge',
] as const;

export type SettingName = (typeof settingNames)[number];

/** The settings `init` asks for: the connection, not the policies (keyMaxAge). */
export const connectionSettingNames = settingNames.filter(name => name !== 'keyMaxAge');

export type SettingSpec = {
	env: string;
	/** The command-line flag (kebab-case) that sets it; secrets have none so they never sit in argv. */
	flag?: string;
	secret: boolean;
	description: string;
	defaultValue?: string;
	/** A value shown when one given cannot be used. */
	example?: string;
};

export const defaultModel = 'AZURE_GPT_4o_2024_1120';

export const settingSpecs: Record<SettingName, SettingSpec> = {
	baseUrl: {env: 'PLATFORM_BASE_URL', flag: 'base-url', secret: false, description: 'Base address of the platform API', example: 'https://api.example.com/public'},
	apiKey: {env: 'PLATFORM_API_KEY', secret: true, description: 'API key (Bearer credential)'},
	appId: {env: 'PLATFORM_APP_ID', flag: 'app-id', secret: false, description: 'Application id (x-app-id)'},
	userId: {env: 'PLATFORM_USER_ID', flag: 'user-id', secret: false, description: 'User the calls are made for'},
	companyId: {env: 'PLATFORM_COMPANY_ID', flag: 'company-id', secret: false, description: 'Company of that user'},
	assistantId: {env: 'PLATFORM_ASSISTANT_ID', flag: 'assistant-id', secret: false, description: 'Space (assistant) id'},
	endpointSecret: {env: 'PLATFORM_ENDPOINT_SECRET', secret: true, description: 'Webhook endpoint secret(s), comma-separated'},
	model: {env: 'PLATFORM_MODEL', flag: 'model', secret: false, description: 'Chat-completion model', defaultValue: defaultModel},
	keyMaxAge: {env: 'PLATFORM_KEY_MAX_AGE', secret: false, description: 'Policy: rotate the API key before it is older than this', example: '90d'},
};

/** What a client needs to reach one space of the platform (the local platform hands out the same, plus its endpoint secret). */
export type ConnectionSettings = Record<'baseUrl' | 'apiKey' | 'appId' | 'userId' | 'companyId' | 'assistantId', string>;

export function isSettingName(name: string): name is SettingName {
	return (settingNames as readonly string[]).includes(name);
}

/** Where a resolved value came from (the one rule: precedence.ts). */
export type SettingSource = ValueSource;

/** Checks a setting's value; returns what was expected when it cannot be used. */
export function settingProblem(name: SettingName, value: string): string | undefined {
	if (name === 'keyMaxAge') {
		const ms = parseDuration(value);
		return ms === undefined || ms < 60_000 ? 'a duration of at least a minute (30d, 12h, 90m)' : undefined;
	}

	if (name !== 'baseUrl') {
		return undefined;
	}

	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'an http(s) address';
	} catch {
		return 'an http(s) address';
	}
}

/** Secrets are shown as `…last4`; kept here for the modules that import it from the settings. */
export {mask} from '../format/secret.js';

/** Key-rotation state kept beside the settings. */
export type RotationState = {
	/** When the key that was replaced stops working (ISO 8601 UTC). */
	previousKeyExpiresAt?: string;
	/** The replaced key, masked (`…last4`); the full key is never stored. */
	previousKeyMasked?: string;
	/** When the last rotation happened (ISO 8601 UTC). */
	lastRotatedAt?: string;
	/** When the stored key was set (`keys set`) or rotated in (ISO 8601 UTC): its age counts from here. */
	keySetAt?: string;
};

export type StoredConfig = Partial<Record<SettingName, string>> & {rotation?: RotationState};
