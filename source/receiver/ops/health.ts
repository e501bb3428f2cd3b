/**
 * serve's honest status: `ready`, `degraded` (with its reasons and since when) or `draining`. The
 * store (journal writable, Redis connected) is checked continuously; the platform at start and
 * every `probeIntervalMs` (sooner while it fails) with one cheap authenticated call, and after
 * every call the answer makes. A key the platform rejects shows at once.
 */
import type {BackendHealth} from '../store/backend.js';
import type {ProbeOutcome} from './platform-probe.js';

export type DependencyState = {
	ok: boolean;
	/** ISO time of the last check. */
	checkedAt?: string;
	/** The last failure's words (kept after recovery as the last error). */
	lastError?: string;
	/** For the platform: why it failed. */
	code?: 'key-rejected' | 'unavailable' | 'unreachable';
};

export type HealthState = {
	status: 'ready' | 'degraded' | 'draining';
	/** ISO time the status (or its reasons) last changed. */
	since: string;
	reasons: string[];
	dependencies: {store: DependencyState; platform: DependencyState};
};

export type HealthOptions = {
	checkStore: () => Promise<BackendHealth>;
	probe: () => Promise<ProbeOutcome>;
	/** Default 30 000. */
	probeIntervalMs?: number;
	/** While the platform fails, it is probed this often, ms (at most probeIntervalMs). Default 5000. */
	failingProbeIntervalMs?: number;
	/** Default 1000. */
	storeIntervalMs?: number;
	now?: () => number;
};

export type HealthListener = (state: HealthState) => void;

export class HealthMonitor {
	private readonly listeners = new Set<HealthListener>();
	private readonly store: DependencyState = {ok: false};
	private readonly platform: DependencyState = {ok: false};
	/** Reasons before the first check of each dependency. */
	private storeChecked = false;
	private platformChecked = false;
	private draining = false;
	private current: HealthState;
	private storeTimer: NodeJS.Timeout | undefined;
	private probeTimer: NodeJS.Timeout | undefined;
	private stopped = false;
	private probing: Promise<void> | undefined;
	private readonly now: () => number;

	constructor(private readonly options: HealthOptions) {
		this.now = options.now ?? Date.now;
		this.current = this.compute(new Date(this.now()).toISOString());
	}

	/** First checks of both, then the timers. Resolves once both were checked. */
	async start(): Promise<void> {
		await Promise.all([this.checkStore(), this.probe()]);
		const storeMs = this.options.storeIntervalMs ?? 1000;
		this.storeTimer = setInterval(() => {
			void this.checkStore();
		}, storeMs);
		this.storeTimer.unref();
	}

	stop(): void {
		this.stopped = true;
		clearInterval(this.storeTimer);
		clearTimeout(this.probeTimer);
	}

	state(): HealthState {
		return this.current;
	}

	get ready(): boolean {
		return this.current.status === 'ready';
	}

	on(listener: HealthListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Draining is final: serve is stopping. */
	markDraining(): void {
		this.draining = true;
		this.update();
	}

	/** A platform call of the answer ended: it tells as much as a probe. */
	reportPlatform(outcome: ProbeOutcome): void {
		if (outcome.ok === this.platform.ok && this.platformChecked && (outcome.ok || outcome.code === this.platform.code)) {
			return;
		}

		this.setPlatform(outcome);
	}

	/** Checks the store now (also what `/readyz` does before it answers). */
	async checkStore(): Promise<void> {
		let health: BackendHealth;
		try {
			health = await this.options.checkStore();
		} catch (error) {
			health = {ok: false, reason: error instanceof Error ? error.message : String(error)};
		}

		this.storeChecked = true;
		this.store.ok = health.ok;
		this.store.checkedAt = new Date(this.now()).toISOString();
		if (!health.ok) {
			this.store.lastError = health.reason;
		}

		this.update();
	}

	/** Probes the platform now; the next probe is scheduled after it. */
	async probe(): Promise<void> {
		this.probing ??= (async () => {
			clearTimeout(this.probeTimer);
			let outcome: ProbeOutcome;
			try {
				outcome = await this.options.probe();
			} catch (error) {
				outcome = {ok: false, code: 'unreachable', error: error instanceof Error ? error.message : String(error)};
			}

			this.setPlatform(outcome);
			this.probing = undefined;
			this.schedule();
		})();
		return this.probing;
	}

	private schedule(): void {
		if (this.stopped) {
			return;
		}

		const interval = this.options.probeIntervalMs ?? 30_000;
		const delay = this.platform.ok ? interval : Math.min(interval, this.options.failingProbeIntervalMs ?? 5000);
		this.probeTimer = setTimeout(() => {
			void this.probe();
		}, delay);
		this.probeTimer.unref();
	}

	private setPlatform(outcome: ProbeOutcome): void {
		this.platformChecked = true;
		this.platform.ok = outcome.ok;
		this.platform.checkedAt = new Date(this.now()).toISOString();
		if (outcome.ok) {
			delete this.platform.code;
		} else {
			this.platform.code = outcome.code;
			this.platform.lastError = outcome.error;
		}

		this.update();
	}

	private reasons(): string[] {
		const reasons: string[] = [];
		if (this.draining) {
			reasons.push('draining: serve is stopping');
		}

		if (!this.storeChecked) {
			reasons.push('store: not checked yet');
		} else if (!this.store.ok) {
			reasons.push(`store: ${this.store.lastError ?? 'unavailable'}`);
		}

		if (!this.platformChecked) {
			reasons.push('platform: not checked yet');
		} else if (!this.platform.ok) {
			const why = this.platform.code === 'key-rejected' ? 'the API key was rejected' : (this.platform.code === 'unavailable' ? 'the platform answers with errors' : 'the platform cannot be reached');
			reasons.push(`platform: ${why} (${this.platform.lastError ?? 'no detail'})`);
		}

		return reasons;
	}

	private compute(since: string): HealthState {
		const reasons = this.reasons();
		const status = this.draining ? 'draining' : (reasons.length === 0 ? 'ready' : 'degraded');
		return {status, since, reasons, dependencies: {store: {...this.store}, platform: {...this.platform}}};
	}

	private update(): void {
		const previous = this.current;
		const next = this.compute(previous.since);
		const changed = next.status !== previous.status || next.reasons.join('\n') !== previous.reasons.join('\n');
		if (changed) {
			next.since = new Date(this.now()).toISOString();
		}

		this.current = next;
		if (changed) {
			for (const listener of this.listeners) {
				try {
					listener(next);
				} catch {
					// A failing view must not stop the checks.
				}
			}
		}
	}
}
