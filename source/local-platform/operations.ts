/**
 * The names of the API operations, as fault rules name them (`createMessageLog:perform-502`).
 * They are the platform client's method names; every route declares one (a test checks the list).
 */
export const apiOperations = [
	'rotateKey',
	'getSpace',
	'createChat',
	'deleteChat',
	'createSpaceMessage',
	'getChatMessages',
	'getLatestMessage',
	'retrieveMessage',
	'listMessages',
	'listModels',
	'modifyMessage',
	'createMessageLog',
	'updateMessageLog',
	'upsertContent',
	'searchContent',
	'deleteContent',
	'search',
	'chatCompletion',
] as const;

export type ApiOperation = typeof apiOperations[number];
