/**
 * One run of serve or listen, from start to its one shutdown path: Ctrl+C / SIGTERM through the
 * context, or q from the screen; a second Ctrl+C on the screen (force) cuts the drain short.
 */
import {plural} from '../../format/text.js';
import type {ServeScreenProps} from '../../ui/serve/ServeScreen.js';
import type {renderApp} from '../../ui/render.js';
import {waitForAbort} from '../../cli/abort.js';
import type {Deps} from '../../cli/deps.js';
import {followStatus, releaseScreen, renderScreen, type Assembled} from './receiving.js';

export class ReceivingSession {
	readonly quit = new AbortController();
	readonly forceQuit = new AbortController();
	readonly stopped: Promise<void>;
	/** Under load one write carries many lines instead of a system call per event; this writes the rest. */
	private readonly release: () => void;
	readonly flushIntervalMs = 100;
	exitCode = 0;
	private app: ReturnType<typeof renderApp> | undefined;

	constructor(private readonly deps: Deps, private readonly parts: Assembled, private readonly attached: Promise<void>) {
		this.stopped = waitForAbort(deps.context.signal, this.quit.signal);
		this.release = deps.output.coalesce(10);
	}

	now = (): string => new Date(this.deps.clock.now()).toISOString();

	/** The live screen (a TTY). */
	async show(props: Omit<ServeScreenProps, 'onQuit' | 'flushIntervalMs'>): Promise<void> {
		this.app = await renderScreen(this.deps.context, {...props, flushIntervalMs: this.flushIntervalMs}, force => {
			if (!force) {
				this.quit.abort();
				return;
			}

			// A second Ctrl+C: stop waiting for running jobs, as the shell does on a second SIGINT.
			this.exitCode = 130;
			this.forceQuit.abort();
			this.quit.abort();
		});
	}

	/** Without the screen, the status is told as a line or a record when it changes. */
	followStatus(): void {
		if (this.app) {
			return;
		}

		void this.attached.then(() => {
			followStatus(this.deps, this.parts.service, this.parts.volatileWarning, this.now);
		});
	}

	/** Waits for the stop, then drains the receiver (`beforeDrain` first) and closes every part. */
	async finish(options: {drainTimeoutMs: number; redisUrl?: string}, command: string, beforeDrain: () => void | Promise<void> = () => undefined): Promise<number> {
		const {receiver, events, service, client} = this.parts;
		const {forceQuit} = this;
		try {
			await this.stopped;
			await beforeDrain();
			await Promise.race([receiver.close(forceQuit.signal.aborted ? 0 : options.drainTimeoutMs), waitForAbort(forceQuit.signal)]);
		} finally {
			const left = forceQuit.signal.aborted ? receiver.counters().processing : 0;
			events.dispose();
			this.release();
			await this.attached.catch(() => undefined);
			await service.stop();
			await client.close();
			await releaseScreen(this.app, this.flushIntervalMs);
			if (forceQuit.signal.aborted) {
				this.deps.context.stderr.write(`Quit without waiting: ${plural(left, 'job')} left unfinished; ${options.redisUrl ? 'another replica takes them over' : `the next ${command} on this data directory resumes them`}.\n`);
			}
		}

		return this.exitCode;
	}
}
