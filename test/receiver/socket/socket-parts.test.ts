/** The socket's pure parts: the SSE parser, frames decoded at the wire, the bounded id memory, gap accounting and its file, and listen's words. */
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {eventSocketUrl, readFrame, SseParser, streamUrl} from '../../../source/platform/event-socket.js';
import {Coverage, coverageFileName, readCoveredUntil} from '../../../source/receiver/socket/coverage.js';
import {RecentIds} from '../../../source/receiver/socket/recent-ids.js';
import {forwardLine, socketLine, socketStatusText} from '../../../source/ui/listen/format.js';
import {intakeFrame} from '../../../source/receiver/intake/intake.js';

const folders: string[] = [];
afterEach(async () => {
	for (const folder of folders.splice(0)) {
		await rm(folder, {recursive: true, force: true});
	}
});

describe('the event socket on the wire', () => {
	it('builds the address from the base URL\'s origin, or keeps --socket-url\'s subscriptions', () => {
		expect(eventSocketUrl('https://api.example.com/public/chat/', ['a.b', 'c'])).toBe('https://api.example.com/public/event-socket/events/stream?subscriptions=a.b,c');
		expect(streamUrl('https://api.example.com/x', 'https://events.example.com/s', ['a'])).toBe('https://events.example.com/s?subscriptions=a');
		expect(streamUrl('https://api.example.com/x', 'https://events.example.com/s?subscriptions=z', ['a'])).toBe('https://events.example.com/s?subscriptions=z');
	});

	it('parses frames split anywhere, joins data lines and skips comments', () => {
		const parser = new SseParser();
		expect(parser.push(': connected\n\ndata: {"id":"e')).toEqual([]);
		expect(parser.push('vt_1"}\r\n\r\ndata: a\ndata:b\n\nevent: x\n')).toEqual(['{"id":"evt_1"}', 'a\nb']);
		expect(parser.push('data: {"id":"evt_2"}\n\n')).toEqual(['{"id":"evt_2"}']);
	});

	it('reads only the id of a frame, and says why one is skipped', () => {
		expect(readFrame('{"id":"evt_1","event":"x","payload":{}}')).toEqual({id: 'evt_1'});
		expect(readFrame('not json')).toEqual({skip: 'not-json'});
		expect(readFrame('{"event":"x"}')).toEqual({skip: 'no-id'});
		expect(readFrame('{"id":""}')).toEqual({skip: 'no-id'});
	});

	it('stores a frame\'s text as the body, its source in the headers, with no secret', () => {
		const decision = intakeFrame({text: '{"id":"evt_9","event":"platform.chat.user-message.created","payload":{"chatId":"c","text":"hi"}}', nowMs: Date.now(), receivedAt: new Date().toISOString(), fallbackId: 'no-id'}, {replayWindowMs: 60_000});
		expect(decision).toMatchObject({kind: 'accept', event: {id: 'evt_9', status: 'logged', headers: {'x-platform-source': 'event-socket'}}, view: {handling: 'logged', secretIndex: undefined}});
	});
});

describe('the ids remembered', () => {
	it('drops a copy, and forgets the oldest past its capacity', () => {
		const recent = new RecentIds(3);
		expect(['a', 'b', 'a', 'c', 'd'].map(id => recent.seen(id))).toEqual([false, false, true, false, false]);
		expect(recent.size).toBe(3);
		expect(recent.seen('a')).toBe(false);
		expect(recent.seen('d')).toBe(true);
	});
});

describe('gap accounting', () => {
	it('counts each span with nothing live, and keeps the last covered moment for the next start', async () => {
		const folder = await mkdtemp(join(tmpdir(), 'coverage-'));
		folders.push(folder);
		const coverage = new Coverage(folder, undefined, 1000);
		expect(coverage.live(1000)).toBeUndefined();
		coverage.covered(1500);
		coverage.covered(2200);
		coverage.uncovered(5000);
		expect(coverage.openGap).toBe(2200);
		expect(coverage.uncoveredMs(3200)).toBe(1000);
		expect(coverage.live(7200)).toEqual({from: 2200, to: 7200});
		expect(coverage.state).toEqual({gaps: 1, uncoveredMs: 5000, lastGap: {from: 2200, to: 7200}});
		expect(JSON.parse(await readFile(join(folder, coverageFileName), 'utf8'))).toEqual({coveredUntil: new Date(7200).toISOString()});
		const next = new Coverage(folder, readCoveredUntil(folder));
		expect(next.live(9000)).toEqual({from: 7200, to: 9000});
	});
});

describe('listen\'s words', () => {
	it('shows a forward as Stripe does, a gap plainly, and the socket\'s status', () => {
		const at = '2026-11-28T03:00:00.000Z';
		expect(forwardLine({type: 'stage', at, eventId: 'evt_1', chatId: 'c', stage: 'answered', forward: {attempt: 1, status: 200, ms: 12}}, 'http://127.0.0.1:3000/webhook')).toMatch(/ {2}\[200\] POST \/webhook evt_1 12 ms$/);
		expect(socketLine({type: 'gap', at, from: at, to: '2026-11-28T03:00:05.000Z', ms: 5000, downtime: true})).toContain('(5000 ms): while listen was not running; events the platform published then are lost');
		const status = socketStatusText({state: 'live', streamsOpened: 3, openStreams: 1, events: 9, copiesDropped: 2, skipped: 1, gaps: 0, uncoveredMs: 0, uncoveredNowMs: 0});
		expect(status).toEqual({text: 'socket live · 3 streams opened · 0 gaps (0 ms uncovered) · 1 frame skipped', ok: true});
	});
});
