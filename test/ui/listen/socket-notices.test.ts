/**
 * listen's socket events as rows of the live screen's log: the same words as the plain lines, a
 * gap wrapped under its text within the width (nothing of it lost at 60 columns), the streams'
 * chatter on one dim line, and the rows in the order heard among the events' rows.
 */
import {describe, expect, it} from 'vitest';
import {displayWidth} from '../../../source/format/width.js';
import type {SocketEvent} from '../../../source/receiver/socket/socket-listener.js';
import {socketLine, socketNotice} from '../../../source/ui/listen/format.js';
import {clock} from '../../../source/ui/serve/format.js';
import {maxNoticeLines, noticeRows} from '../../../source/ui/serve/notice-rows.js';
import {noticeFeed, noticeLine, type Notice} from '../../../source/ui/serve/notices.js';
import {applyEvent, applyNotice, initialServeState, isNotice} from '../../../source/ui/serve/state.js';

const at = '2026-11-28T03:00:05.000Z';
const from = '2026-11-28T03:00:00.000Z';
const gap: SocketEvent = {type: 'gap', at, from, to: at, ms: 5000, downtime: true};
// eslint-disable-next-line no-control-regex -- the colours' escape sequences
const plain = (line: string) => line.replaceAll(/\u001B\[\d+m/g, '');

describe('socket events in words', () => {
	it('says each one as its plain line did: time, a label column, the words', () => {
		const time = clock(at);
		expect(socketLine(gap)).toBe(`${time}  GAP     ${clock(from)} → ${time} (5000 ms): while listen was not running; events the platform published then are lost (it keeps none)`);
		expect(socketLine({type: 'stream-opened', at, stream: 2, open: 2})).toBe(`${time}  socket  stream 2 opened (2 streams open)`);
		expect(socketLine({type: 'stream-closed', at, stream: 1, reason: 'replaced', openMs: 540_000, live: true})).toBe(`${time}  socket  stream 1 closed: the next one is live`);
		expect(socketLine({type: 'stream-refused', at, status: 503, error: 'HTTP 503', retryInMs: 500})).toBe(`${time}  socket  not opened (HTTP 503); next try in 500 ms`);
		expect(socketLine({type: 'socket-stopped', at, reason: 'unauthorized', status: 401})).toBe(`${time}  socket  stopped: HTTP 401`);
	});

	it('gives the gap and the stop red, a refusal and a platform\'s close yellow, the streams\' chatter dim', () => {
		const tone = (event: SocketEvent) => socketNotice(event).tone;
		expect(tone(gap)).toBe('error');
		expect(tone({type: 'socket-stopped', at, reason: 'not-found', status: 404})).toBe('error');
		expect(tone({type: 'stream-refused', at, error: 'connect ECONNREFUSED', retryInMs: 500})).toBe('warn');
		expect(tone({type: 'stream-closed', at, stream: 1, reason: 'closed', openMs: 1000, live: true})).toBe('warn');
		expect(tone({type: 'stream-opened', at, stream: 1, open: 1})).toBe('quiet');
		expect(tone({type: 'stream-closed', at, stream: 1, reason: 'stopped', openMs: 1000, live: true})).toBe('quiet');
		expect(tone({type: 'socket-closed', at, streamsOpened: 1, gaps: 0, uncoveredMs: 0, events: 0, copiesDropped: 0, skipped: 0})).toBe('info');
	});
});

describe('notice rows of the log', () => {
	it.each([60, 100])('shows a gap whole at %i columns: from–to, how long, why; wrapped under its text, each line within the width', width => {
		const rows = noticeRows(socketNotice(gap), false, width);
		for (const row of rows) {
			expect(displayWidth(row)).toBeLessThan(width);
		}

		expect(rows[0]).toMatch(/^\d\d:\d\d:\d\d {2}GAP {5}\d\d:\d\d:\d\d → /);
		expect(rows.slice(1).every(row => row.startsWith(' '.repeat(18)) && row[18] !== ' ')).toBe(true);
		const words = rows.map(row => row.trim()).join(' ');
		expect(words).toBe(socketLine(gap));
		expect(rows).toHaveLength(width === 100 ? 2 : 4);
	});

	it('keeps a stream\'s chatter on one dim line, cut to the width', () => {
		const notice = socketNotice({type: 'stream-closed', at, stream: 12, reason: 'replaced', openMs: 540_000, live: true});
		const [row, ...more] = noticeRows(notice, true, 40);
		expect(more).toEqual([]);
		expect(row?.startsWith('\u001B[2m')).toBe(true);
		expect(displayWidth(plain(row ?? ''))).toBe(39);
		expect(plain(row ?? '')).toMatch(/^\d\d:\d\d:\d\d {2}socket {2}stream 12 closed: th…$/);
	});

	it('colours the label and the words by the tone, the time dim', () => {
		const [row] = noticeRows(socketNotice(gap), true, 200);
		// eslint-disable-next-line no-control-regex -- the colours' escape sequences
		expect(row).toMatch(/^\u001B\[2m\d\d:\d\d:\d\d\u001B\[22m {2}\u001B\[31mGAP {3}\u001B\[39m {2}\u001B\[31m/);
	});

	it(`ends a long one in its ${maxNoticeLines}th line, cut`, () => {
		const notice: Notice = {kind: 'notice', time: '10:00:00', label: 'socket', text: 'word '.repeat(200), tone: 'warn'};
		const rows = noticeRows(notice, false, 60);
		expect(rows).toHaveLength(maxNoticeLines);
		expect(rows.at(-1)).toMatch(/…$/);
		expect(displayWidth(rows.at(-1) ?? '')).toBe(59);
		expect(noticeLine(notice).startsWith('10:00:00  socket  word word')).toBe(true);
	});
});

describe('notices among the events\' rows', () => {
	it('go into the finished rows in the order heard, never selectable', () => {
		const state = initialServeState();
		applyEvent(state, {type: 'duplicate', at, request: 1, remoteAddress: '127.0.0.1', status: 200, eventId: 'evt_1', eventType: 'platform.chat.user-message.created'});
		applyNotice(state, socketNotice(gap));
		applyEvent(state, {type: 'duplicate', at, request: 2, remoteAddress: '127.0.0.1', status: 200, eventId: 'evt_2', eventType: 'platform.chat.user-message.created'});
		expect(state.done.map(row => isNotice(row) ? row.label : row.eventId)).toEqual(['evt_1', 'GAP', 'evt_2']);
		expect(state.recent.map(row => row.eventId)).toEqual(['evt_1', 'evt_2']);
	});

	it('are kept until the screen listens, then handed over in order; later ones go straight to it', () => {
		const feed = noticeFeed();
		const first = socketNotice({type: 'stream-opened', at, stream: 1, open: 1});
		feed.push(first);
		feed.push(socketNotice(gap));
		const heard: string[] = [];
		const stop = feed.on(notice => heard.push(notice.label));
		feed.push(first);
		expect(heard).toEqual(['socket', 'GAP', 'socket']);
		stop();
		feed.push(first);
		expect(heard).toHaveLength(3);
	});
});
