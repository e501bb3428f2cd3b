/** The upload screen's model: what the screen shows, as one plain value the reducer replaces. */
import type {RateSamples} from '../../format/rate-samples.js';
import type {FileFailure} from '../../workflow/errors.js';
import type {ChatMessageSummary, SpaceSummary} from '../../workflow/events.js';
import type {SkippedEntry} from '../../workflow/files.js';

export type FilePhase = 'waiting' | 'upserting' | 'uploading' | 'finalizing' | 'ingesting' | 'finished' | 'failed';

export type FileRow = {
	name: string;
	size: number;
	mimeType: string;
	contentId?: string;
	phase: FilePhase;
	sentBytes: number;
	/** The bytes are in the blob store (set at file-uploaded, kept if ingestion fails later). */
	uploaded: boolean;
	/** Last ingestion state seen. */
	state?: string;
	error?: string;
	/** A retry is pending for this file's request. */
	retry?: {inMs: number; reason: string; at: number};
	/** A sync skipped it: same bytes as its FINISHED content. */
	unchanged?: boolean;
};

/** Things that are final, printed once above the live area, in the order they happened. */
export type StaticItem =
	| {kind: 'file'; key: string; row: FileRow}
	| {kind: 'banner'; key: string; text: string}
	| {kind: 'space'; key: string; space: SpaceSummary}
	| {kind: 'space-warning'; key: string; message: string}
	| {kind: 'chat'; key: string; chatId: string; title: string; elapsedMs: number}
	/** A sync's plan: counts, and the unchanged files skipped. */
	| {kind: 'sync'; key: string; upload: number; replace: number; awaiting: number; unchanged: string[]; unchangedBytes: number; deleting: string[]; manifest?: string}
	| {kind: 'skipped'; key: string; skipped: SkippedEntry[]}
	/** `folded`: FINISHED files counted, not printed one by one (file-rows.ts). */
	| {kind: 'ingestion'; key: string; finished: number; failed: number; total: number; elapsedMs: number; folded: number}
	| {kind: 'reply'; key: string; text: string; elapsedMs: number}
	| {kind: 'history'; key: string; messages: ChatMessageSummary[]};

export type UploadViewState = {
	/** Date.now() when the run started; the screen's clock. */
	startedAt: number;
	folder?: string;
	space?: SpaceSummary;
	spaceWarning?: string;
	chat: {status: 'waiting' | 'creating' | 'created'; id?: string; title?: string; createdAt?: number};
	files: FileRow[];
	totalBytes: number;
	sentBytes: number;
	uploadStartedAt?: number;
	/** Bytes sent per second (throughput.ts). */
	throughput?: RateSamples;
	uploadEndedAt?: number;
	ingestion: {status: 'waiting' | 'running' | 'done'; total: number; timeoutMs?: number; startedAt?: number; endedAt?: number; round: number};
	reply: {status: 'waiting' | 'sent' | 'streaming' | 'done'; prompt?: string; text: string; sentAt?: number; elapsedMs?: number};
	history?: ChatMessageSummary[];
	/** Final things (rows ✔/✖, space, chat, reply, history), in the order they became final; append-only for <Static>. */
	finished: StaticItem[];
	/** FINISHED file rows printed in `finished`, and those only counted past the first few. */
	listedFinished: number;
	folded: number;
	/** The last retry of a request that belongs to no one file (ingestion checks, reply polls). */
	retry?: {operation: string; inMs: number; reason: string; at: number};
	result?: {chatId: string; contentIds: string[]; reply: string; failed: FileFailure[]};
	error?: string;
	cancelled: boolean;
	/** A cancelled run into a known chat: the chat and the command that continues it. */
	resume?: string;
	/** Ended: result, error or cancelled. */
	done: boolean;
	endedAt?: number;
};

export function initialUploadState(startedAt: number, prompt?: string, banner?: string): UploadViewState {
	return {
		startedAt,
		chat: {status: 'waiting'},
		files: [],
		totalBytes: 0,
		sentBytes: 0,
		ingestion: {status: 'waiting', total: 0, round: 0},
		reply: prompt === undefined ? {status: 'waiting', text: ''} : {status: 'waiting', prompt, text: ''},
		finished: banner === undefined ? [] : [{kind: 'banner', key: '\u0000banner', text: banner}],
		listedFinished: 0,
		folded: 0,
		cancelled: false,
		done: false,
	};
}
