import type {MessageLogStatus} from '../../platform/types.js';
import type {MessageLog} from '../records.js';
import type {ChatStore, MessageRecord} from './chat-store.js';
import {isoNow} from '../clock.js';
import {quotaExceeded, type Caller, type ServiceContext} from '../context.js';
import {badRequest, notFound, objectBody, optionalString, requiredString, type JsonObject} from '../http/http.js';
import {newId} from '../ids.js';
import {created, ok, type Route} from '../http/router.js';
import {pick} from './view.js';

type LogRecord = MessageLog & {createdAt: string; updatedAt: string; companyId: string};

const logStatuses: readonly MessageLogStatus[] = ['RUNNING', 'COMPLETED', 'FAILED'];

function logStatus(value: unknown): MessageLogStatus {
	if (typeof value !== 'string' || !logStatuses.includes(value as MessageLogStatus)) {
		throw badRequest(`"status" must be one of ${logStatuses.join(', ')}`);
	}

	return value as MessageLogStatus;
}

const logFields = ['id', 'messageId', 'text', 'status', 'order', 'createdAt', 'updatedAt'] as const;

function logView(log: LogRecord): MessageLog {
	return pick(log, logFields);
}

/** Message logs (the steps shown under an assistant message). */
export class MessageLogStore {
	private readonly logs = new Map<string, LogRecord>();

	constructor(
		private readonly context: ServiceContext,
		private readonly chats: ChatStore,
	) {}

	/** The logs of a message as the API shows them, in the order they were written. */
	of(message: MessageRecord): MessageLog[] {
		return message.logIds
			.map(id => this.logs.get(id))
			.filter((log): log is LogRecord => log !== undefined)
			.map(log => logView(log));
	}

	/** Forgets the logs of removed messages. */
	removeFor(messages: readonly MessageRecord[]): void {
		for (const message of messages) {
			for (const id of message.logIds) {
				this.logs.delete(id);
			}
		}
	}

	/** POST /message-log: `{messageId, text, status, order}`. */
	create(body: JsonObject, caller: Pick<Caller, 'companyId'>): MessageLog {
		const messageId = requiredString(body, 'messageId');
		const text = optionalString(body, 'text');
		if (text === undefined) {
			throw badRequest('"text" is required and must be a string');
		}

		const status = logStatus(body.status);
		const {order} = body;
		if (typeof order !== 'number' || !Number.isInteger(order)) {
			throw badRequest('"order" is required and must be an integer');
		}

		const message = this.chats.messageFor(messageId, caller);
		const {maxLogsPerMessage} = this.context.limits;
		if (message.logIds.length >= maxLogsPerMessage) {
			throw quotaExceeded('message logs per message', maxLogsPerMessage);
		}

		const createdAt = isoNow(this.context.clock);
		const log: LogRecord = {id: newId('msglog'), messageId: message.id, text, status, order, createdAt, updatedAt: createdAt, companyId: message.companyId};
		this.logs.set(log.id, log);
		message.logIds.push(log.id);
		return logView(log);
	}

	/** PATCH /message-log/{id}: `{text?, status?}`. */
	update(logId: string, body: JsonObject, caller: Pick<Caller, 'companyId'>): MessageLog {
		const log = this.logs.get(logId);
		if (log?.companyId !== caller.companyId) {
			throw notFound(`Message log ${logId} not found`);
		}

		const text = optionalString(body, 'text');
		log.status = body.status === undefined ? log.status : logStatus(body.status);
		log.text = text ?? log.text;
		log.updatedAt = isoNow(this.context.clock);
		return logView(log);
	}
}

export function messageLogRoutes(logs: MessageLogStore): Route[] {
	return [
		{operation: 'createMessageLog', method: 'POST', path: '/message-log', handle: ({body, caller}) => created(logs.create(objectBody(body), caller))},
		{operation: 'updateMessageLog', method: 'PATCH', path: '/message-log/:logId', handle: ({params, body, caller}) => ok(logs.update(params.logId ?? '', objectBody(body), caller))},
	];
}
