/**
 * Pressing keys in an ink-testing-library screen without guessing how long it takes to get ready.
 * Ink subscribes an input handler in an effect React runs after the frame is drawn, scheduled with
 * setImmediate (the scheduler's task, which flushes every pending effect at once); a key written
 * before that is dropped. Yielding to the event loop after the frame shows lets that task run
 * first: the order of the event loop, not a time.
 */
import {setImmediate as yieldToLoop} from 'node:timers/promises';

/** Resolves once the effects of the last render have run (their handlers are subscribed). */
export async function effectsFlushed(): Promise<void> {
	await yieldToLoop();
	await yieldToLoop();
}
