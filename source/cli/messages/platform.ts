/**
 * How the CLI words the platform client's errors (source/platform/errors.ts), keyed by error code:
 * `message` says which call failed, how, and its request id; `next` says what to do.
 */
import {formatSeconds} from '../../format/duration.js';
import {plural} from '../../format/text.js';
import type {PlatformErrorData} from '../../platform/errors.js';
import {settingWhere, sourcesOf} from './setting-source.js';
import type {MessageTable} from './types.js';

/** The operations as the platform reference names them. */
const operationNames: Record<string, string> = {
	rotateKey: 'Rotate key',
	createChat: 'Create chat',
	getSpace: 'Get space',
	createSpaceMessage: 'Create space message',
	getLatestMessage: 'Get latest space message',
	getChatMessages: 'Get space chat messages',
	getMessage: 'Retrieve message',
	listMessages: 'List messages',
	listModels: 'List models',
	deleteChat: 'Delete chat',
	createContent: 'Content upsert',
	finalizeContent: 'Content upsert (finalize)',
	putBlob: 'File upload (PUT to the blob address)',
	searchContent: 'Content search',
	deleteContent: 'Delete content',
	search: 'Search',
	chatCompletion: 'Chat completion',
	createMessageLog: 'Create message log',
	updateMessageLog: 'Update message log',
	modifyMessage: 'Modify message',
};

type Data = PlatformErrorData & {platformMessage?: string; field?: string; detail?: string; target?: string; systemCode?: string};

/** `Create chat (POST /space/chat)`. */
function call(data: Data): string {
	const name = operationNames[data.operation] ?? data.operation;
	return `${name} (${data.method} ${data.path})`;
}

/** ` (request id req_1)`, or nothing. */
function request(data: Data): string {
	return data.requestId ? ` (request id ${data.requestId})` : '';
}

/** `after 3 attempts over 12.5 s`, when it was tried more than once. */
function tries(data: Data): string {
	return data.attempts > 1 ? ` after ${plural(data.attempts, 'attempt')} over ${formatSeconds(data.elapsedMs)}` : '';
}

function said(data: Data): string {
	return data.platformMessage ? `: ${data.platformMessage}` : '';
}

export const platformMessages: MessageTable = {
	'platform-unauthorized': (data: Data) => ({
		message: `${call(data)} was refused with HTTP 401${said(data)}${request(data)}: the API key is wrong, expired or revoked`,
		next: sourcesOf(data).apiKey === 'env'
			? 'The key comes from PLATFORM_API_KEY: set it to a valid key (while it is set, a stored key is not used); \'platform-tui keys show\' shows the key in use.'
			: 'Check the key with \'platform-tui keys show\'; replace an expired key with \'platform-tui keys set\'.',
	}),
	'platform-forbidden': (data: Data) => ({
		message: `${call(data)} was refused with HTTP 403${said(data)}${request(data)}`,
		next: 'Check that the API key, app id, user id and company id belong together (\'platform-tui config list\').',
	}),
	'platform-not-found': (data: Data) => ({
		message: `${call(data)} found nothing: HTTP 404${said(data)}${request(data)}`,
		next: 'Check the id in the path (assistant id, chat id) and that it belongs to this company (\'platform-tui config list\').',
	}),
	'platform-rate-limited': (data: Data) => ({
		message: `${call(data)} was rate limited (HTTP 429)${tries(data)}${request(data)}`,
		next: 'The platform is busy; wait a minute and try again.',
	}),
	'platform-unavailable': (data: Data) => ({
		message: `${call(data)} failed with HTTP ${data.status ?? '5xx'}${said(data)}${tries(data)}${request(data)}`,
		next: 'The platform is failing; try again shortly, and report the request id if it persists.',
	}),
	'platform-rejected': (data: Data) => ({
		message: `${call(data)} was rejected with HTTP ${data.status ?? '4xx'}${said(data)}${request(data)}`,
		next: 'Check the values passed; run again with --debug to see the request.',
	}),
	'platform-connection-refused': (data: Data) => ({
		message: `${call(data)} could not reach ${data.target ?? 'the platform'}${data.systemCode ? ` (${data.systemCode})` : ''}${tries(data)}`,
		next: `Check ${settingWhere('baseUrl', data)} and that the platform is running.`,
	}),
	'platform-connection-lost': (data: Data) => ({
		message: `${call(data)} lost its connection to ${data.target ?? 'the platform'}${data.systemCode ? ` (${data.systemCode})` : ''}${tries(data)}`,
		next: 'Check the network and try again; a create may have been done, so look before repeating it.',
	}),
	'platform-no-answer': (data: Data) => ({
		message: `${call(data)} got no answer after ${plural(data.attempts, 'attempt')} over ${formatSeconds(data.elapsedMs)}`,
		next: `The platform is slow or unreachable; check ${settingWhere('baseUrl', data)} and try again.`,
	}),
	'platform-malformed-response': (data: Data) => ({
		message: `${call(data)} answered HTTP ${data.status ?? 200} with a malformed body: ${data.detail ?? `${data.field ?? 'the body'} is wrong`}${request(data)}`,
		next: 'Nothing after this step was done; report the request id to the platform operator.',
	}),
};
