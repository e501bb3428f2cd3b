/**
 * The one guard on a run's stdout and stderr. When the reader of either goes away (`… | head -1`
 * exits, the terminal closes) the next write fails (EPIPE) or finds the stream destroyed, and Node
 * emits 'error' on the stream: unheard, that ends the process with a stack trace. Here every error
 * of either stream is heard: the run's signal is aborted with the reason 'SIGPIPE', the command
 * stops as it does on Ctrl+C, nothing more is said, and the run exits 141 (128 + SIGPIPE), the
 * status `git log | head`, gh and rclone leave in the same pipe.
 */
import type {CommandContext} from './types.js';

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
