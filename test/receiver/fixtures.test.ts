/**
 * Test events from fixtures: `events export` → `trigger --body` round trip against a running
 * serve (built CLI), byte-identical apart from the fields changed; `--set` paths and JSON values;
 * `--from-event` with and without `--keep-id`; bodies serve would refuse are reported, not sent.
 */
import {mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import eventsExport from '../../source/commands/events/export.js';
import {parseSets} from '../../source/commands/trigger/fixture.js';
import trigger from '../../source/commands/trigger/trigger.js';
import {UsageError} from '../../source/cli/validators.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {checkedDelivery, FixtureError, freshIdentity, setPath} from '../../source/receiver/intake/fixture.js';
import {buildTestEvent} from '../../source/receiver/intake/test-event.js';
import {startCli, type CliProcess} from '../support/cli.js';
import {startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';

const secret = 'whsec_fixture_tests_secret';

function tempDir(): string {
	return mkdtempSync(join(tmpdir(), 'platform-tui-fixtures-'));
}

describe('--set paths and JSON values', () => {
	it('reads path=JSON, repeatable, and refuses a value that is not JSON with the quoting hint', () => {
		expect(parseSets(['payload.text="What does it cost?"', 'payload.count=3', 'payload.flags={"a":[1,null]}', 'payload.items.1=true'])).toEqual([
			{path: 'payload.text', value: 'What does it cost?'},
			{path: 'payload.count', value: 3},
			{path: 'payload.flags', value: {a: [1, null]}},
			{path: 'payload.items.1', value: true},
		]);
		expect(parseSets('a.b=null')).toEqual([{path: 'a.b', value: null}]);
		expect(parseSets('a="x=1"')).toEqual([{path: 'a', value: 'x=1'}]);
		expect(() => parseSets(['payload.text=What'])).toThrow(UsageError);
		expect(() => parseSets(['payload.text=What'])).toThrow(`--set payload.text: the value must be JSON (a string in double quotes: --set payload.text='"text"'); got "What".`);
		expect(() => parseSets(['=1'])).toThrow('--set must be path=value');
	});

	it('sets dotted paths: nested objects, list items by number, new objects on the way', () => {
		const body: Record<string, unknown> = {payload: {userMessage: {text: 'old', id: 'msg_1'}, items: ['a', 'b']}};
		setPath(body, 'payload.userMessage.text', 'new', 'f.json');
		setPath(body, 'payload.items.1', {b: 2}, 'f.json');
		setPath(body, 'payload.items.2', 'c', 'f.json');
		setPath(body, 'payload.configuration.mode', 'strict', 'f.json');
		expect(body).toEqual({payload: {userMessage: {text: 'new', id: 'msg_1'}, items: ['a', {b: 2}, 'c'], configuration: {mode: 'strict'}}});
		const through = (path: string) => {
			try {
				setPath(body, path, 1, 'f.json');
				return undefined;
			} catch (error) {
				return error;
			}
		};

		expect((through('payload.userMessage.text.more') as FixtureError).data).toMatchObject({path: 'payload.userMessage.text.more', detail: 'payload.userMessage.text is string, not an object'});
		expect((through('payload.items.x') as FixtureError).code).toBe('fixture-path-invalid');
		expect((through('payload.items.9') as FixtureError).data.detail).toContain('a list of 3');
		expect((through('payload..x') as FixtureError).data.detail).toBe('it has an empty part');
	});

	it('a fresh identity keeps the form of createdAt', () => {
		const now = new Date('2031-05-01T10:00:00.000Z');
		for (const [before, after] of [['1700000000', '1935396000'], [1_700_000_000, 1_935_396_000], ['2024-01-01T00:00:00Z', '2031-05-01T10:00:00.000Z']] as const) {
			const body: Record<string, unknown> = {id: 'evt_old', createdAt: before};
			freshIdentity(body, now);
			expect(body.createdAt).toEqual(after);
			expect(body.id).toMatch(/^evt_[\da-f]{24}$/);
		}
	});

	it('checks a body as serve does: too old, too large, a chosen event lacking its ids', () => {
		const now = new Date('2031-05-01T10:00:00.000Z');
		const event = buildTestEvent('user-message', {now: new Date(now.getTime() - (8 * 86_400_000))});
		const refused = (text: string) => {
			try {
				checkedDelivery(text, {secret, now, source: 'f.json'});
				return undefined;
			} catch (error) {
				return error as FixtureError;
			}
		};

		expect(refused(JSON.stringify(event))?.data).toMatchObject({status: 400, error: 'Event too old: its createdAt is outside the replay window (7d)'});
		expect(refused(JSON.stringify({...event, createdAt: String(Math.floor(now.getTime() / 1000)), pad: 'x'.repeat(1024 * 1024)}))?.data).toMatchObject({status: 413});
		const chosen = buildTestEvent('external-module-chosen', {now}) as unknown as {payload: Record<string, unknown>};
		delete chosen.payload.chatid;
		expect(refused(JSON.stringify(chosen))?.data.missing).toEqual(['payload.chatid']);
		expect(refused('[1]')?.code).toBe('fixture-not-an-object');
		expect(refused('{"a":')?.code).toBe('fixture-not-json');
		const ok = checkedDelivery(JSON.stringify({...event, createdAt: String(Math.floor(now.getTime() / 1000))}), {secret, now, source: 'f.json'});
		expect(ok.headers['x-platform-id']).toBe(event.id);
	});

	it('refuses flags that do not fit together, with one sentence', async () => {
		for (const [flags, argv, sentence] of [
			[{body: 'a.json', fromEvent: 'evt_1'}, [], 'Give --body or --from-event, not both.'],
			[{body: 'a.json'}, ['user-message'], 'the event kind is the body\'s own "event"'],
			[{body: 'a.json', text: 'hi'}, [], '--text build an event of their own'],
			[{set: ['a=1']}, ['user-message'], '--set and --keep-id change a fixture'],
		] as const) {
			const result = await runCommand(trigger, {argv: [...argv], flags: {...flags}});
			expect(result.code).toBe(1);
			expect(result.stderr).toContain(sentence);
		}
	});
});

describe('fixtures against a running serve (built CLI)', () => {
	let platform: LocalPlatform;
	let serve: CliProcess & {url: string; events(): Array<Record<string, unknown>>};
	const dataDir = tempDir();
	const workDir = tempDir();

	const received = () => serve.events().filter(event => event.type === 'accepted' || event.type === 'duplicate');

	/** Runs trigger in-process against serve, and waits until serve has logged that delivery. */
	async function send(flags: Record<string, unknown>, argv: string[] = []) {
		const before = received().length;
		const result = await runCommand(trigger, {argv, env: {PLATFORM_ENDPOINT_SECRET: secret}, flags: {url: `${serve.url}/webhook`, dataDir, ...flags}, json: true});
		expect(result.stderr).toBe('');
		const eventId = (JSON.parse(result.stdout) as {eventId: string}).eventId;
		const event = await waitFor(() => received().slice(before).find(entry => entry.eventId === eventId), {until: entry => entry !== undefined, what: 'serve to log the delivery'});
		return {...result, eventId, event};
	}

	async function exported(id: string): Promise<string> {
		const file = join(workDir, `${id}.json`);
		const result = await runCommand(eventsExport, {argv: [id], flags: {dataDir, output: file}});
		expect(result.code).toBe(0);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		return readFileSync(file, 'utf8');
	}

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		const env = {PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId, PLATFORM_ENDPOINT_SECRET: secret};
		const run = startCli(['serve', '--port', '0', '--json', '--data-dir', dataDir], {env});
		const events = () => run.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
		const first = await waitFor(() => events()[0] ?? (run.child.exitCode === null ? undefined : {failed: run.stderr()}), {until: value => value !== undefined, what: 'serve to listen'});
		if (first?.type !== 'listening') {
			throw new Error(`serve did not start: ${JSON.stringify(first)} ${run.stderr()}`);
		}

		serve = {...run, url: String(first.url), events};
	});

	afterAll(async () => {
		if (serve.child.exitCode === null) {
			serve.child.kill('SIGTERM');
		}

		await serve.closed;
		await platform.close();
	});

	it('serve says its key came from the environment', () => {
		expect(serve.events()[0]).toMatchObject({type: 'listening', keySource: 'env', key: `…${platform.apiKey.slice(-4)}`});
	});

	it('export → trigger --body: arrives byte-identical apart from the fields changed', async () => {
		// A built event first, so the journal holds a body the way a delivery wrote it.
		const built = await send({text: 'How long is the warranty?', chatId: 'chat_fixture'}, ['user-message']);
		expect(built.code).toBe(0);
		const builtId = built.eventId;
		const originalBody = await exported(builtId);
		// To stdout: the same body and a line end.
		expect((await runCommand(eventsExport, {argv: [builtId], flags: {dataDir}})).stdout).toBe(`${originalBody}\n`);

		const fixture = join(workDir, 'fixture.json');
		writeFileSync(fixture, originalBody);
		const sent = await send({body: fixture, set: ['payload.text="What does it cost?"', 'payload.extra={"tier":2}']});
		expect(sent.code).toBe(0);
		const answer = JSON.parse(sent.stdout) as {eventId: string; status: number; event: string};
		expect(answer).toMatchObject({status: 200, event: 'platform.chat.user-message.created'});
		expect(answer.eventId).not.toBe(builtId);
		expect(sent.event).toMatchObject({type: 'accepted', eventId: answer.eventId, text: 'What does it cost?'});

		const arrived = await exported(answer.eventId);
		const expected = JSON.parse(originalBody) as Record<string, unknown> & {payload: Record<string, unknown>; createdAt: string};
		const got = JSON.parse(arrived) as {createdAt: string};
		expected.id = answer.eventId;
		expected.createdAt = got.createdAt;
		expected.payload.text = 'What does it cost?';
		expected.payload.extra = {tier: 2};
		expect(arrived).toBe(JSON.stringify(expected));
		expect(Number(got.createdAt)).toBeGreaterThanOrEqual(Number((JSON.parse(originalBody) as {createdAt: string}).createdAt));

		// --keep-id and no --set: the very bytes, so serve sees the same event again.
		const again = await send({body: fixture, keepId: true});
		expect(again.code).toBe(0);
		expect(again.event).toMatchObject({type: 'duplicate', eventId: builtId});
	});

	it('--from-event: a new id without --keep-id, the same id (a duplicate) with it', async () => {
		const {eventId: id} = await send({text: 'again please', chatId: 'chat_again'}, ['user-message']);

		const fresh = await send({fromEvent: id});
		expect(fresh.code).toBe(0);
		const freshId = (JSON.parse(fresh.stdout) as {eventId: string}).eventId;
		expect(freshId).not.toBe(id);
		expect(fresh.event).toMatchObject({type: 'accepted', eventId: freshId, text: 'again please', chatId: 'chat_again'});

		const same = await send({fromEvent: id, keepId: true});
		expect(same.code).toBe(0);
		expect((JSON.parse(same.stdout) as {eventId: string}).eventId).toBe(id);
		expect(same.event).toMatchObject({type: 'duplicate', eventId: id});

		const unknown = await runCommand(trigger, {env: {PLATFORM_ENDPOINT_SECRET: secret}, flags: {url: `${serve.url}/webhook`, dataDir, fromEvent: 'evt_not_there'}});
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('evt_not_there');
	});

	it('a body serve would refuse is reported with the reason and not sent', async () => {
		const file = join(workDir, 'chosen.json');
		const chosen = buildTestEvent('external-module-chosen') as unknown as {payload: Record<string, unknown>};
		delete chosen.payload.chatid;
		writeFileSync(file, JSON.stringify(chosen, null, 2));
		const before = received().length;
		const lacking = await runCommand(trigger, {env: {PLATFORM_ENDPOINT_SECRET: secret}, flags: {url: `${serve.url}/webhook`, body: file}});
		expect(lacking.code).toBe(1);
		expect(joinText(describeError(lacking.error))).toContain(`serve would not answer ${file}: it lacks payload.chatid; nothing was sent.`);

		const tooOld = await runCommand(trigger, {env: {PLATFORM_ENDPOINT_SECRET: secret}, flags: {url: `${serve.url}/webhook`, body: file, keepId: true, set: ['payload.chatid="chat_1"', `createdAt="${Math.floor(Date.now() / 1000) - (8 * 86_400)}"`]}});
		expect(tooOld.code).toBe(1);
		expect(tooOld.stderr).toContain('serve would refuse');
		expect(tooOld.stderr).toContain('Event too old');

		// Fixed with --set, the pretty-printed fixture goes out (as compact JSON) and is answered.
		const fixed = await send({body: file, set: ['payload.chatid="chat_fixed"']});
		expect(fixed.code).toBe(0);
		expect(fixed.event).toMatchObject({type: 'accepted', eventType: 'platform.chat.external-module.chosen', chatId: 'chat_fixed'});
		expect(received().length).toBe(before + 1);
	});
});
