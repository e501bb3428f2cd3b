import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import type {Space} from '../../../source/platform/types.js';
import {InitForm, type InitOutcome, type InitValues} from '../../../source/ui/init/init-form.js';
import {effectsFlushed} from '../../support/keys.js';
import {waitFor} from '../../support/wait.js';

const space: Space = {name: 'Support space', languageModel: 'AZURE_GPT_4o_2024_1120', chatUpload: 'ENABLED', modules: []};

/** Waits until the frame shows `text` and returns that frame. */
async function waitForFrame(lastFrame: () => string | undefined, text: string): Promise<string> {
	return waitFor(() => lastFrame() ?? '', {until: frame => frame.includes(text), what: `"${text}" in the frame`});
}

async function answer(stdin: {write: (data: string) => void}, lastFrame: () => string | undefined, question: string, value: string) {
	await waitForFrame(lastFrame, question);
	// The question's input subscribes to keys in an effect after the frame: let it run first.
	await effectsFlushed();
	// The input keeps what was typed in a ref, so Enter right after the text submits all of it.
	stdin.write(value);
	stdin.write('\r');
	await effectsFlushed();
}

describe('init form', () => {
	it('asks each setting with secrets masked, checks them and saves', async () => {
		const checked: InitValues[] = [];
		let saved: InitValues | undefined;
		let outcome: InitOutcome | undefined;
		let summary: string[] = [];
		const {stdin, lastFrame} = render(
			<InitForm
				current={{model: 'AZURE_GPT_4o_2024_1120'}}
				check={values => {
					checked.push(values);
					return Promise.resolve(space);
				}}
				save={values => {
					saved = values;
					return '/tmp/config.json';
				}}
				onDone={(result, lines) => {
					outcome = result;
					summary = lines;
				}}
			/>,
		);
		await answer(stdin, lastFrame, 'PLATFORM_BASE_URL', 'http://127.0.0.1:4010');
		await answer(stdin, lastFrame, 'PLATFORM_API_KEY', 'sk_live_supersecret_7777');
		const masked = await waitForFrame(lastFrame, 'apiKey: …');
		expect(masked).toContain('apiKey: …7777');
		expect(masked).not.toContain('supersecret');
		await answer(stdin, lastFrame, 'PLATFORM_APP_ID', 'app_1');
		await answer(stdin, lastFrame, 'PLATFORM_USER_ID', 'user_1');
		await answer(stdin, lastFrame, 'PLATFORM_COMPANY_ID', 'company_1');
		await answer(stdin, lastFrame, 'PLATFORM_ASSISTANT_ID', 'assistant_1');
		await answer(stdin, lastFrame, 'PLATFORM_ENDPOINT_SECRET', '');
		await answer(stdin, lastFrame, 'PLATFORM_MODEL', '');
		await waitFor(() => outcome, {what: 'the outcome'});
		expect(summary[0]).toBe('✔ Saved to /tmp/config.json');
		expect(lastFrame()).not.toContain('sk_live_supersecret_7777');
		expect(summary.join('\n')).not.toContain('sk_live_supersecret_7777');
		expect(checked).toHaveLength(1);
		expect(saved).toEqual({
			baseUrl: 'http://127.0.0.1:4010',
			apiKey: 'sk_live_supersecret_7777',
			appId: 'app_1',
			userId: 'user_1',
			companyId: 'company_1',
			assistantId: 'assistant_1',
			model: 'AZURE_GPT_4o_2024_1120',
		});
		expect(outcome).toEqual({saved: true, cancelled: false});
	});

	it('insists on required settings and a well-formed base URL', async () => {
		const {stdin, lastFrame} = render(<InitForm current={{}} check={() => Promise.resolve(space)} save={() => 'x'} onDone={() => undefined}/>);
		await answer(stdin, lastFrame, 'PLATFORM_BASE_URL', '');
		expect(lastFrame()).toContain('baseUrl is required.');
		await answer(stdin, lastFrame, 'PLATFORM_BASE_URL', 'ftp://nope');
		expect(lastFrame()).toContain('must start with http:// or https://');
	});

	it('shows a failed check in red and lets the user quit without saving', async () => {
		let saved = false;
		let outcome: InitOutcome | undefined;
		let summary: string[] = [];
		const {stdin, lastFrame} = render(
			<InitForm
				current={{baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_old_1111', appId: 'a', userId: 'u', companyId: 'c', assistantId: 's'}}
				check={() => Promise.reject(new Error('GET /space/s failed with HTTP 401: invalid key'))}
				save={() => {
					saved = true;
					return 'x';
				}}
				onDone={(result, lines) => {
					outcome = result;
					summary = lines;
				}}
			/>,
		);
		for (const env of ['PLATFORM_BASE_URL', 'PLATFORM_API_KEY', 'PLATFORM_APP_ID', 'PLATFORM_USER_ID', 'PLATFORM_COMPANY_ID', 'PLATFORM_ASSISTANT_ID', 'PLATFORM_ENDPOINT_SECRET', 'PLATFORM_MODEL']) {
			// Enter keeps each current value.
			await answer(stdin, lastFrame, env, '');
		}

		const frame = await waitForFrame(lastFrame, 'HTTP 401: invalid key');
		expect(frame).toContain('to save anyway');
		await effectsFlushed();
		stdin.write('q');
		await waitFor(() => outcome, {what: 'the outcome'});
		expect(summary).toEqual(['Nothing was saved.']);
		expect(saved).toBe(false);
		expect(outcome).toEqual({saved: false, cancelled: false});
	});
});

describe('init form: the end of the form', () => {
	it('on success names the space and its model, and the command to run next', async () => {
		let summary: string[] = [];
		const {stdin, lastFrame} = render(<InitForm current={{}} check={() => Promise.resolve(space)} save={() => '/tmp/config.json'} onDone={(_outcome, lines) => {
			summary = lines;
		}}/>);
		for (const [env, value] of [['PLATFORM_BASE_URL', 'http://127.0.0.1:4010'], ['PLATFORM_API_KEY', 'sk_1234'], ['PLATFORM_APP_ID', 'a'], ['PLATFORM_USER_ID', 'u'], ['PLATFORM_COMPANY_ID', 'c'], ['PLATFORM_ASSISTANT_ID', 's'], ['PLATFORM_ENDPOINT_SECRET', ''], ['PLATFORM_MODEL', '']] as const) {
			await answer(stdin, lastFrame, env, value);
		}

		await waitFor(() => summary.length > 0, {what: 'the summary'});
		// The result is printed by the command once the form is gone; the last frame holds the answers.
		expect(summary).toEqual(['✔ Saved to /tmp/config.json', '✔ Found the space "Support space" (model AZURE_GPT_4o_2024_1120)', 'Next: platform-tui upload <folder> "<question>"']);
		const frame = lastFrame() ?? '';
		expect(frame).not.toContain('Saved to');
		expect(frame).toContain('endpointSecret: (skipped)');
		expect(frame).not.toContain('(not set)');
	});

	it('Esc leaves only the answered rows, no empty ones, and reports a cancel', async () => {
		let outcome: InitOutcome | undefined;
		let summary: string[] = [];
		const {stdin, lastFrame} = render(
			<InitForm
				current={{}}
				check={() => Promise.resolve(space)}
				save={() => 'x'}
				onDone={(result, lines) => {
					outcome = result;
					summary = lines;
				}}
			/>,
		);
		await answer(stdin, lastFrame, 'PLATFORM_BASE_URL', 'http://127.0.0.1:4010');
		await waitForFrame(lastFrame, 'PLATFORM_API_KEY');
		stdin.write('\u001B');
		await waitFor(() => outcome, {what: 'the outcome'});
		expect(summary).toEqual(['Cancelled; nothing was saved.']);
		const frame = lastFrame() ?? '';
		expect(frame).toContain('baseUrl: http://127.0.0.1:4010');
		expect(frame).not.toContain('(not set)');
		for (const name of ['apiKey:', 'appId:', 'userId:', 'companyId:', 'assistantId:', 'model:']) {
			expect(frame).not.toContain(name);
		}

		expect(outcome).toEqual({saved: false, cancelled: true});
	});
});
