import type {PlatformClient} from '../../platform/client.js';
import type {AnswerPort} from './answer-port.js';

/** The platform client as the answer's port: every call over HTTP, named for the event's user and company. */
export function platformPort(client: PlatformClient): AnswerPort {
	return {
		createMessageLog: async (body, call) => client.createMessageLog(body, call),
		updateMessageLog: async (id, body, call) => client.updateMessageLog(id, body, call),
		search: async (body, call) => client.search(body, call),
		chatCompletion: async (body, call) => client.chatCompletion(body, call),
		modifyMessage: async (id, body, call) => client.modifyMessage(id, body, call),
		getMessage: async (id, chatId, call) => client.getMessage(id, chatId, call),
	};
}
