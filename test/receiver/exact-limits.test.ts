/**
 * Exact limits: deliveries arriving together never pass --max-backlog or --max-events (the slot is
 * taken before the event is stored, not after its commit).
 */
import {describe, expect, it} from 'vitest';
import {PlatformClient} from '../../source/platform/client.js';
import {BackendUnavailableError} from '../../source/receiver/store/backend.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {createReceiver} from '../../source/receiver/server.js';
import {newEvent, tempDataDir} from './journal/helpers.js';
import {sendJson, startRecordingServer} from '../support/recording-server.js';
import {chosenEvent, sendSigned} from './helpers.js';
import {closersAfterEach} from '../support/cleanups.js';

const secret = 'whsec_exact_limits';
const cleanups = closersAfterEach();

describe('limits under concurrent deliveries', () => {
	it('--max-backlog 20: of 60 deliveries sent at once, exactly 20 are stored, the rest get 503', async () => {
		// A platform that holds every call until the test ends: every stored event stays unfinished.
		let release: () => void = () => undefined;
		const held = new Promise<void>(resolve => {
			release = resolve;
		});
		const platform = await startRecordingServer({handler: async (_request, response) => {
			await held;
			sendJson(response, 400, {error: 'done'});
		}});
		cleanups.push(async () => platform.close());
		const client = new PlatformClient({baseUrl: platform.url, apiKey: 'sk_test_key', appId: 'app_test', retries: 0});
		const backend = await openJournal({directory: tempDataDir()});
		const receiver = createReceiver({client, secrets: [secret], backend, concurrency: 2, maxBacklog: 20});
		const {url} = await receiver.listen({port: 0});
		cleanups.push(async () => {
			release();
			await receiver.close(0);
			await client.close();
		});

		const events = Array.from({length: 60}, (_, n) => chosenEvent({chatId: `chat_${n}`, text: 'Question?', assistantMessageId: `msg_${n}`, userId: 'user_a', companyId: 'company_a'}));
		const answers = await Promise.all(events.map(async event => sendSigned(`${url}/webhook`, event, secret)));
		expect(answers.filter(answer => answer.status === 200)).toHaveLength(20);
		expect(answers.filter(answer => answer.status === 503)).toHaveLength(40);
		const stored = await Promise.all(events.map(async event => receiver.event(String(event.id))));
		expect(stored.filter(Boolean)).toHaveLength(20);
	});

	it('--max-events 30: of 90 unfinished events accepted at once, exactly 30 are stored, the rest are refused busy', async () => {
		const backend = await openJournal({directory: tempDataDir(), maxEntries: 30});
		cleanups.push(async () => backend.close());
		const outcomes = await Promise.allSettled(Array.from({length: 90}, async () => backend.accept(newEvent())));
		expect(outcomes.filter(outcome => outcome.status === 'fulfilled')).toHaveLength(30);
		const refusals = outcomes.flatMap(outcome => outcome.status === 'rejected' ? [outcome.reason as unknown] : []);
		expect(refusals).toHaveLength(60);
		expect(refusals.every(reason => reason instanceof BackendUnavailableError && reason.code === 'backend-busy')).toBe(true);
		expect((await backend.backlog?.())?.count).toBe(30);
	});
});
