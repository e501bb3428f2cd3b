/** One valid answer per client operation, in the shapes of ../shared/platform-api.md. */
const message = {id: 'msg_1', chatId: 'chat_1', role: 'ASSISTANT', text: 'Hi', createdAt: '2026-01-01T00:00:00.000Z', stoppedStreamingAt: null};
const content = {id: 'cont_1', key: 'a.txt', title: 'a.txt', mimeType: 'text/plain', writeUrl: 'http://blob/write', readUrl: 'http://blob/read'};
const log = {id: 'log_1', messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1};

export const validAnswers = {
	rotateKey: {new_key: 'sk_new_key_0002', old_key_expires_at: '2026-01-01T01:00:00.000Z'},
	createChat: {id: 'chat_1', title: 'T', createdAt: '2026-01-01T00:00:00.000Z'},
	getSpace: {id: 'assistant_1', name: 'Space', languageModel: 'AZURE_GPT_4o_2024_1120', chatUpload: 'ENABLED', modules: [{id: 'mod_1', name: 'Docs', isExternal: true}]},
	createSpaceMessage: {...message, role: 'USER'},
	getLatestMessage: message,
	getChatMessages: {messages: [message], totalCount: 1},
	getMessage: {...message, debugInfo: null},
	listMessages: {object: 'list', data: [message]},
	deleteChat: {id: 'chat_1'},
	listModels: {models: ['AZURE_GPT_4o_2024_1120']},
	deleteContent: {id: 'cont_1'},
	createContent: content,
	finalizeContent: {...content, writeUrl: null},
	searchContent: [{...content, ingestionState: 'FINISHED'}],
	search: [{id: 'r1', chunkId: 'c1', text: 'Refunds take 5 days.', key: 'a.txt', title: 'a.txt', url: null, order: 1, startPage: 1, endPage: 1}],
	chatCompletion: {choices: [{index: 0, message: {role: 'assistant', content: 'Answer'}, finish_reason: 'stop'}]},
	createMessageLog: log,
	updateMessageLog: {...log, status: 'COMPLETED'},
	modifyMessage: {...message, text: 'Answer'},
} as const;
