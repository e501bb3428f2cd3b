/**
 * Step 4 of spec §4.3: send the prompt, then poll the latest message until it stopped streaming:
 * at once, then with growing waits up to the poll interval, and every 300 ms while the text grows
 * (poll-waits.ts).
 */
import {ReplyTimeoutError} from './errors.js';
import type {UploadEventListener} from './events.js';
import {until} from './ingestion.js';
import {pollWaits, replyProgressMs, replySteps} from './poll-waits.js';
import {monotonicClock, type Clock} from '../platform/clock.js';
import {PlatformResponseError} from '../platform/errors.js';
import type {Message} from '../platform/types.js';
import type {UploadClient} from './types.js';

export type AskOptions = {
	client: Pick<UploadClient, 'createSpaceMessage' | 'getLatestMessage'>;
	assistantId: string;
	chatId: string;
	prompt: string;
	pollIntervalMs: number;
	/**
	 * Wait before the first poll; the workflow polls at once, as the SDK's
	 * send_message_and_wait_for_completion does (an answer that is quick to write is then seen
	 * without a poll interval's wait), then with growing waits up to `pollIntervalMs`.
	 */
	firstPollMs: number;
	timeoutMs: number;
	signal: AbortSignal;
	emit: UploadEventListener;
	/** The clock the waits between polls and the timeout are counted on (a test passes a `ManualClock`). */
	clock?: Clock;
};

/** One read of the latest message before `deadline`; an answer that is not a message is `refused`, and the wait goes on. */
async function latestMessage(options: AskOptions, deadline: ReturnType<typeof until>, refused: PlatformResponseError | undefined): Promise<{latest?: Message; refused?: PlatformResponseError}> {
	try {
		return {latest: await options.client.getLatestMessage(options.chatId, {signal: deadline.signal})};
	} catch (error) {
		if (deadline.expired()) {
			throw new ReplyTimeoutError(options.chatId, options.timeoutMs, refused);
		}

		if (!(error instanceof PlatformResponseError)) {
			throw error;
		}

		return {refused: error};
	}
}

export async function askAndWait(options: AskOptions): Promise<string> {
	const {client, chatId, signal, emit, timeoutMs} = options;
	const clock = options.clock ?? monotonicClock;
	// Rejects on cancel as Node's timer promises do (an AbortError, whatever the abort's reason).
	const sleep = async (ms: number): Promise<void> => {
		await clock.sleep(ms, signal);
		if (signal.aborted) {
			throw new DOMException('The operation was aborted', 'AbortError');
		}
	};
	const sent = await client.createSpaceMessage({assistantId: options.assistantId, chatId, text: options.prompt}, {signal});
	const sentId = sent.id;
	emit(sentId === undefined ? {type: 'message-sent', text: options.prompt} : {type: 'message-sent', messageId: sentId, text: options.prompt});
	const started = clock.now();
	const elapsed = (): number => clock.now() - started;
	let shown = '';
	const waits = pollWaits(options.pollIntervalMs, replySteps, replyProgressMs);
	if (options.firstPollMs > 0) {
		await sleep(Math.min(options.firstPollMs, timeoutMs));
	}

	// A latest-message answer that cannot be read (not a message at all) is no reply yet: the wait
	// goes on, and a timeout names the chat whatever the last answer looked like.
	let refused: PlatformResponseError | undefined;
	for (;;) {
		const deadline = until(signal, timeoutMs - elapsed());
		const read = await latestMessage(options, deadline, refused);
		const {latest} = read;
		refused = read.refused;

		let progressed = false;
		if (latest !== undefined && isReply(latest, sentId)) {
			const text = latest.text ?? '';
			if (latest.stoppedStreamingAt !== null && latest.stoppedStreamingAt !== undefined) {
				emit({type: 'reply-complete', text, elapsedMs: Math.round(elapsed())});
				return text;
			}

			if (text !== shown) {
				shown = text;
				progressed = true;
				emit({type: 'reply-progress', text, elapsedMs: Math.round(elapsed())});
			}
		}

		const remaining = timeoutMs - elapsed();
		if (remaining <= 0) {
			throw new ReplyTimeoutError(chatId, timeoutMs, refused);
		}

		await sleep(Math.min(waits.next(progressed), remaining));
	}
}

/**
 * The user's own message is not the reply, whatever its streaming fields say: it is known by the
 * id the send answered with, or by its role. Without either, the latest message is taken as the
 * reply once it stopped streaming.
 */
function isReply(latest: Message, sentId: string | undefined): boolean {
	if (sentId !== undefined && latest.id === sentId) {
		return false;
	}

	return latest.role?.toUpperCase() !== 'USER';
}
