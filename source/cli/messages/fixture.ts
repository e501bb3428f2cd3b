/** The sentences for test events from fixtures (source/receiver/intake/fixture.ts). */
import type {FixtureErrorData} from '../../receiver/intake/fixture.js';
import type {MessageTable} from './types.js';

export const fixtureMessages: MessageTable = {
	'fixture-not-json': (data: FixtureErrorData) => ({
		message: `${data.source} is not valid JSON: ${data.detail ?? 'unreadable'}.`,
		next: 'A fixture is one webhook body as JSON; `platform-tui events export <id>` writes one from a stored event.',
	}),
	'fixture-not-an-object': (data: FixtureErrorData) => ({
		message: `${data.source} is not a JSON object, so it cannot be a webhook body.`,
		next: 'A webhook body is an object with id, event, createdAt, userId, companyId and payload.',
	}),
	'fixture-path-invalid': (data: FixtureErrorData) => ({
		message: `--set ${data.path ?? ''} cannot be applied to ${data.source}: ${data.detail ?? 'no such place'}; nothing was sent.`,
		next: 'Name fields with dots (payload.userMessage.text) and list items by number (payload.items.0).',
	}),
	'fixture-refused': (data: FixtureErrorData) => ({
		message: data.missing
			? `serve would not answer ${data.source}: it lacks ${data.missing.join(', ')}; nothing was sent.`
			: `serve would refuse ${data.source} with HTTP ${data.status ?? 400}: ${data.error ?? 'refused'}; nothing was sent.`,
		next: data.missing
			? 'Add the fields with --set (e.g. --set payload.chatid=\'"chat_1"\').'
			: (data.error?.startsWith('Event too old') ? 'Leave out --keep-id (or --set createdAt) to send it with a fresh createdAt.' : 'Fix the body, or change it with --set.'),
	}),
};
