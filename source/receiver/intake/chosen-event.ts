import {isRecord} from '../../format/value.js';

/** What the answer needs from a `platform.chat.external-module.chosen` event. */
export type ChosenJob = {
	eventId: string;
	userId: string;
	companyId: string;
	/** From the payload's `chatid` (lower-case "id" in this event). */
	chatId: string;
	assistantMessageId: string;
	/**
	 * The user's text. Absent when the event lacks `payload.userMessage.text`: the answer then takes
	 * the failure path (the apology is written and the stream stopped), since the ids to write it are known.
	 */
	text?: string;
};

function nonEmptyString(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Reads the fields of a chosen-module event (top-level userId/companyId, payload chatid,
 * userMessage.text, assistantMessage.id). Returns the names of the missing ids when the event
 * lacks one needed to write anything (user, company, chat, assistant message); a missing text is
 * not among them (see `ChosenJob.text`).
 */
export function parseChosenEvent(envelope: Record<string, unknown>, eventId: string): {job: ChosenJob} | {missing: string[]} {
	const payload = isRecord(envelope.payload) ? envelope.payload : {};
	const userMessage = isRecord(payload.userMessage) ? payload.userMessage : {};
	const assistantMessage = isRecord(payload.assistantMessage) ? payload.assistantMessage : {};
	const fields = {
		userId: nonEmptyString(envelope.userId),
		companyId: nonEmptyString(envelope.companyId),
		'payload.chatid': nonEmptyString(payload.chatid),
		'payload.assistantMessage.id': nonEmptyString(assistantMessage.id),
	};
	const missing = Object.entries(fields).filter(([, value]) => value === undefined).map(([name]) => name);
	const {userId, companyId} = fields;
	const chatId = fields['payload.chatid'];
	const assistantMessageId = fields['payload.assistantMessage.id'];
	if (!userId || !companyId || !chatId || !assistantMessageId) {
		return {missing};
	}

	const job: ChosenJob = {eventId, userId, companyId, chatId, assistantMessageId};
	if (typeof userMessage.text === 'string') {
		job.text = userMessage.text;
	}

	return {job};
}
