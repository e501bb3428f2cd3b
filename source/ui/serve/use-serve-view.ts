/**
 * What the serve screen shows of the receiver's events: they fold into one state (no render per
 * event), and at most every `flushIntervalMs` a copy of what is shown becomes the view, finished
 * rows in batches for <Static>. Paused, finished rows wait; while the editor has the terminal,
 * nothing is written.
 */
import {useEffect, useRef, useState, type RefObject} from 'react';
import type {ReceiverEvent} from '../../receiver/events.js';
import {noticeRows} from './notice-rows.js';
import type {NoticeSource} from './notices.js';
import {paint, rowLine} from './rows.js';
import type {ServeSource} from './source.js';
import {applyEvent, applyNotice, initialServeState, isNotice, type LogRow, type ServeState} from './state.js';

export type StaticItem = {kind: 'banner'; key: string} | {kind: 'rows'; key: string; text: string};

/** What a render shows: a copy made at each flush, so rendering never reads the folded state. */
export type View = {
	batch: {id: number; items: StaticItem[]};
	/** The first live rows (no terminal shows more). */
	live: LogRow[];
	liveCount: number;
	recent: LogRow[];
	/** Finished rows not written yet (paused). */
	held: number;
	draining?: ServeState['draining'];
	stopped?: ServeState['stopped'];
};

const initialView: View = {batch: {id: 0, items: [{kind: 'banner', key: 'banner'}]}, live: [], liveCount: 0, recent: [], held: 0};

/** Live rows copied per flush: more than any terminal has lines. */
const maxLiveCopied = 300;

/** Finished rows written per render (Ink re-tokenizes every character it writes: this bounds a render). */
const maxRowsPerFlush = 50;
/** Finished rows waiting to be written; past it the oldest are summarized in one line. */
const maxPendingRows = 500;

export type ServeViewOptions = {
	source: ServeSource;
	/** Rows about no event (listen's socket), written among the finished rows. */
	notices?: NoticeSource;
	flushIntervalMs: number;
	color: boolean;
	/** The columns a finished row may take, as of the last render. */
	width: RefObject<number>;
	/** Set while the log is paused (finished rows wait). */
	paused: RefObject<boolean>;
	/** Set while the editor has the terminal (nothing is written). */
	editing: RefObject<boolean>;
};

/**
 * The view, the folded state (replays note their ids in it) and `flush`, which shows the state at
 * once (after a pause is lifted or the editor is left).
 */
export function useServeView({source, notices, flushIntervalMs, color, width, paused, editing}: ServeViewOptions): {view: View; state: RefObject<ServeState>; flush: RefObject<(() => void) | undefined>} {
	const state = useRef<ServeState>(initialServeState());
	const [view, setView] = useState<View>(initialView);
	const flushRef = useRef<() => void>(undefined);
	useEffect(() => {
		let timer: NodeJS.Timeout | undefined;
		const flush = (all = false) => {
			timer = undefined;
			const {done} = state.current;
			const lines: string[] = [];
			if (done.length > maxPendingRows) {
				const skipped = done.length - maxPendingRows;
				done.splice(0, skipped);
				lines.push(paint(`… ${skipped} rows not shown to keep up with the load (the counters include them; --json logs every event)`, 'yellow', color));
			}

			// Paused, finished rows wait (the live rows and the box still change).
			if (editing.current && !all) {
				return;
			}

			for (const row of done.splice(0, all ? done.length : (paused.current ? 0 : maxRowsPerFlush))) {
				lines.push(...(isNotice(row) ? noticeRows(row, color, width.current) : [rowLine(row, color, width.current)]));
			}

			const {live, recent: latest, draining, stopped} = state.current;
			setView(previous => ({
				// Static writes each item once; a new batch gets a new Static (keyed by the batch number).
				batch: lines.length > 0 ? {id: previous.batch.id + 1, items: [{kind: 'rows', key: `rows-${previous.batch.id + 1}`, text: lines.join('\n')}]} : previous.batch,
				live: [...live.values()].slice(0, maxLiveCopied),
				liveCount: live.size,
				recent: [...latest],
				held: done.length,
				...(draining ? {draining} : {}),
				...(stopped ? {stopped} : {}),
			}));
			if (done.length > 0 && !paused.current) {
				timer = setTimeout(flush, flushIntervalMs);
			}
		};

		flushRef.current = () => {
			clearTimeout(timer);
			flush();
		};

		const unsubscribe = source.on('event', (event: ReceiverEvent) => {
			applyEvent(state.current, event);
			if (event.type === 'stopped') {
				// The last render before the screen is released shows every remaining row.
				clearTimeout(timer);
				flush(true);
				return;
			}

			timer ??= setTimeout(flush, flushIntervalMs);
		});
		const unsubscribeNotices = notices?.on(notice => {
			applyNotice(state.current, notice);
			timer ??= setTimeout(flush, flushIntervalMs);
		});
		return () => {
			unsubscribe();
			unsubscribeNotices?.();
			clearTimeout(timer);
		};
	}, [source, notices, flushIntervalMs, color, width, paused, editing]);

	return {view, state, flush: flushRef};
}
