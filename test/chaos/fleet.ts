/**
 * The processes the chaos run kills: `serve` (built CLI, NDJSON log) in journal mode on one data
 * directory, or replicas sharing one Redis. Each process's log lines are kept after it dies, so the
 * report can count what every process did.
 */
import {startCli, type CliProcess} from '../support/cli.js';

export type ServeProcess = {run: CliProcess; url: string; killed: boolean};

export type FleetSettings = {env: Record<string, string>; store: string[]; /** More serve flags (deadlines, --forward-to). */ args?: string[]};

export class Fleet {
	readonly all: ServeProcess[] = [];
	private next = 0;

	constructor(private readonly settings: FleetSettings) {}

	/** Starts one serve and resolves once it listens; fails naming its stderr when it does not. */
	async start(): Promise<ServeProcess> {
		const run = startCli(['serve', '--port', '0', '--json', ...this.settings.store, ...(this.settings.args ?? [])], {env: this.settings.env});
		const deadline = Date.now() + 60_000;
		for (;;) {
			const listening = [...lines(run), ...parse(run.stderr())].find(line => line.type === 'listening');
			if (listening !== undefined) {
				const process: ServeProcess = {run, url: String(listening.url), killed: false};
				this.all.push(process);
				return process;
			}

			if (run.child.exitCode !== null || Date.now() > deadline) {
				run.child.kill('SIGKILL');
				throw new Error(`serve did not start: ${run.stderr().trim() || 'no output within 60 s'}`);
			}

			await new Promise(resolve => {
				setTimeout(resolve, 20);
			});
		}
	}

	/** The processes still alive. */
	live(): ServeProcess[] {
		return this.all.filter(process => !process.killed);
	}

	/** A live process's URL, taking turns (a load balancer in front of the replicas). */
	target(): string | undefined {
		const live = this.live();
		if (live.length === 0) {
			return undefined;
		}

		this.next = (this.next + 1) % live.length;
		return live[this.next]?.url;
	}

	async kill(process: ServeProcess): Promise<void> {
		process.killed = true;
		process.run.child.kill('SIGKILL');
		await process.run.closed;
	}

	/** Stops every live process the way an operator does (SIGTERM: drain, then exit). */
	async stop(): Promise<void> {
		await Promise.all(this.live().map(async process => {
			process.killed = true;
			process.run.child.kill('SIGTERM');
			const timer = setTimeout(() => process.run.child.kill('SIGKILL'), 30_000);
			await process.run.closed;
			clearTimeout(timer);
		}));
	}

	/** Every NDJSON line of every process, dead or alive. */
	lines(): Array<Record<string, unknown>> {
		return this.all.flatMap(process => lines(process.run));
	}
}

function lines(run: CliProcess): Array<Record<string, unknown>> {
	return parse(run.stdout());
}

function parse(text: string): Array<Record<string, unknown>> {
	const parsed: Array<Record<string, unknown>> = [];
	for (const line of text.split('\n')) {
		if (line.startsWith('{')) {
			try {
				parsed.push(JSON.parse(line) as Record<string, unknown>);
			} catch {
				// A line cut by the kill.
			}
		}
	}

	return parsed;
}
