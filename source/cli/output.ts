/**
 * The one guard on a run's stdout and stderr. When the reader of either goes away (`… | head -1`
 * exits, the terminal closes) the next write fails (EPIPE) or finds the stream destroyed, and Node
 * emits 'error' on the stream: unheard, that ends the process with a stack trace. Here every error
 * of either stream is heard: the run's signal is aborted with the reason 'SIGPIPE', the command
 * stops as it does on Ctrl+C, nothing more is said, and the run exits 141 (128 + SIGPIPE), the
 * status `git log | head`, gh and rclone leave in the same pipe.
 *
 * Also the run's writer without --json (`createPlainOutput`: the plain text of each record) and
 * the sink both writers write through.
 */
import type {Output} from '../context.js';
import type {RunError} from './json.js';
import type {JsonRecordLine} from './json-records.js';
import type {CommandContext} from '../context.js';

/** The abort reason of a run whose reader went away (beside 'SIGINT' and 'SIGTERM'). */
export const readerGoneReason = 'SIGPIPE';

type Streams = Pick<CommandContext, 'stdout' | 'stderr'>;

export type OutputGuard = {
	/** The run's signal: aborted by the caller's signal, or with 'SIGPIPE' when an output's reader left. */
	signal: AbortSignal;
	/** True once a write to stdout or stderr failed before the run was cancelled: its output has no reader. */
	readerGone(): boolean;
	/** Resolves once the errors of writes already made have been heard (Node emits them a tick later). */
	settled(): Promise<void>;
};

/**
 * Listens for the errors of both streams for the rest of the process: a write made after the run
 * (the last flush) must not crash either. A stream that already failed fails the run at once.
 */
export function guardOutput(streams: Streams, signal: AbortSignal): OutputGuard {
	const gone = new AbortController();
	let failed = false;
	const onError = (): void => {
		// A run already cancelled (Ctrl+C reaches `head` too) keeps its own exit code.
		failed ||= !signal.aborted;
		gone.abort(readerGoneReason);
	};

	for (const stream of [streams.stdout, streams.stderr]) {
		stream.on('error', onError);
		if ((stream as {destroyed?: boolean}).destroyed === true) {
			onError();
		}
	}

	return {
		signal: AbortSignal.any([signal, gone.signal]),
		readerGone: () => failed,
		settled: async () => new Promise(resolve => {
			setImmediate(resolve);
		}),
	};
}

/** The run's writer as the dispatcher holds it: a command's `Output`, and the end of the run. */
export type RunOutput = Output<JsonRecordLine> & {
	/** Ends a run that finished: with --json the `result` line (naming the profile when it is not `default`). */
	result(command: string, exitCode: number, profile?: {profile?: string}): void;
	/** Ends a run that failed or was stopped: with --json the `error` line. */
	error(error: RunError): void;
};

/** Where a writer's text goes: to the stream at once, or, once coalescing, collected and written together. */
export type Sink = {
	write: (text: string) => void;
	coalesce: (intervalMs: number) => () => void;
	/** Writes what is collected. */
	flush: () => void;
};

export function createSink(stream: NodeJS.WritableStream): Sink {
	let pending: string[] = [];
	let intervalMs: number | undefined;
	let timer: NodeJS.Timeout | undefined;
	const flush = (): void => {
		clearTimeout(timer);
		timer = undefined;
		if (pending.length > 0) {
			const text = pending.join('');
			pending = [];
			stream.write(text);
		}
	};

	return {
		write(text) {
			if (intervalMs === undefined) {
				stream.write(text);
				return;
			}

			// Under load one write carries many lines instead of a system call per line.
			pending.push(text);
			timer ??= setTimeout(flush, intervalMs);
		},
		coalesce(ms) {
			intervalMs = ms;
			return () => {
				intervalMs = undefined;
				flush();
			};
		},
		flush,
	};
}

/** The writer of a run without --json: a record's plain text on stdout; the end of the run writes what is collected. */
export function createPlainOutput(stdout: NodeJS.WritableStream): RunOutput {
	const sink = createSink(stdout);
	return {
		json: false,
		print(_record, plain) {
			const text = typeof plain === 'function' ? plain() : plain;
			if (text) {
				sink.write(text);
			}
		},
		touched() {
			// Only the --json last line lists ids.
		},
		coalesce: sink.coalesce,
		result: sink.flush,
		error: sink.flush,
	};
}
