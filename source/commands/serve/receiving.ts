/**
 * What serve and listen share when they run: their parts wired (the store, the client, the
 * service, the receiver and its event source), the key in use, the screen's loading and release,
 * and the status told as lines or records without the screen.
 */
import {defaultModel} from '../../config/settings.js';
import {keyStatus as storedKeyStatus} from '../../keys/status.js';
import {mask, maskUrl} from '../../format/secret.js';
import {defaultDataDir} from '../../receiver/store/open-backend.js';
import {createReceiver} from '../../receiver/server.js';
import {createService, type Service} from '../../receiver/service.js';
import {Pacer} from '../../platform/pacer.js';
import {clock} from '../../ui/serve/format.js';
import {replayingSource} from '../../ui/serve/source.js';
import type {KeyStatus, ServeScreenProps} from '../../ui/serve/ServeScreen.js';
import type {renderApp} from '../../ui/render.js';
import {editWhileServing} from '../events/edit-replay.js';
import type {Deps} from '../../cli/deps.js';
import {healthNext, healthRecord, healthText, waitingRecord, waitingText} from '../../cli/messages/health.js';
import {durabilityWarning} from '../../cli/messages/redis.js';
import {loadScreen} from '../../ui/react-build.js';
import type {ReceivingOptions} from './flags.js';
import {checkFolders, openServeStore, receiverOptions} from './start.js';

export type Assembled = Awaited<ReturnType<typeof assemble>>;

export function keyStatusOf(deps: Deps, apiKey: () => string): () => KeyStatus {
	// PLATFORM_API_KEY is read once at start (as the client does): a rotation stored meanwhile is not used.
	const source = deps.context.env.PLATFORM_API_KEY?.trim() ? 'env' as const : 'stored' as const;
	return () => {
		const keyMasked = mask(apiKey());
		const {previousKey, envHoldsPreviousKey, storedKeyMasked} = storedKeyStatus({env: deps.context.env, store: deps.store(), now: () => new Date(deps.clock.now())});
		const expiry = previousKey ? {previousKeyExpiresAt: previousKey.expiresAt} : {};
		// Serve runs on the key a rotation replaced (PLATFORM_API_KEY): its expiry and the stored key
		// to restart with. Otherwise a previous key is shown only when it is not the key in use.
		if (envHoldsPreviousKey && storedKeyMasked) {
			return {keyMasked, source, previousKeyMasked: keyMasked, storedKeyMasked, ...expiry};
		}

		return previousKey?.masked && previousKey.masked !== keyMasked ? {keyMasked, source, previousKeyMasked: previousKey.masked, ...expiry} : {keyMasked, source};
	};
}

/** The settings a receiving command runs with (the endpoint secret only where it signs or verifies). */
export type ReceivingSettings = {baseUrl: string; apiKey: string; appId: string; model?: string | undefined; endpointSecret?: string | undefined; userId?: string | undefined; companyId?: string | undefined};

/**
 * The parts serve and listen share, wired: the store (owned by `command`), the platform client with
 * its pacer, the service, the receiver and its event source. `secrets`: the endpoint secrets
 * (verifying webhooks, signing forwards).
 */
export async function assemble(options: ReceivingOptions, deps: Deps, settings: ReceivingSettings, secrets: string[], command: 'serve' | 'listen') {
	const {context} = deps;
	const directory = options.dataDir ?? defaultDataDir(context.env);
	const rate = options.platformRate;
	// Checked before the journal opens: another user's folder, or one others can write, is refused.
	const folderWarnings = checkFolders(options, directory, context.env);
	const backend = await openServeStore(options, directory, command);
	// One pacer for every call of this process; a 429 holds every worker (with Redis, every replica).
	const pacer = new Pacer({...(rate === undefined ? {} : {perSecond: rate}), onPause: ms => void backend.throttle?.(ms).catch(() => undefined)});
	const client = deps.client(settings, {pacer, onRequest: entry => {
		service.onRequest(entry);
	}});
	const service = createService({backend, client, maxBacklog: options.maxBacklog, ...(options.probeIntervalMs === undefined ? {} : {probeIntervalMs: options.probeIntervalMs, failingProbeIntervalMs: options.probeIntervalMs})});
	const keyStatus = keyStatusOf(deps, deps.apiKey(settings.apiKey));
	const model = settings.model ?? defaultModel;
	const receiver = createReceiver(receiverOptions(options, {client, secrets, backend, model, service}));
	const store = options.redisUrl ? `redis ${maskUrl(options.redisUrl)}` : `journal ${directory}`;
	// Said at start-up: on the screen's status box, as a log line, as an NDJSON record; a volatile
	// Redis (run with --allow-volatile-redis) is named again on every status line.
	const redisWarning = () => options.redisUrl ? durabilityWarning(backend.durability, maskUrl(options.redisUrl)) : undefined;
	const volatileWarning = () => backend.durability?.state === 'volatile' ? redisWarning() : undefined;
	const warning = redisWarning();
	// Subscribed before listening: what starts with it (events resumed from the journal) is kept
	// for the screen or the log, which attach a moment later.
	const events = {
		...replayingSource(receiver),
		// The screen's e: the editor opens while the receiver goes on answering.
		edit: async (id: string, stored?: (copyId: string) => void) => editWhileServing(await receiver.event(id), id, backend, async copy => {
			stored?.(copy);
			return receiver.replay(copy);
		}, context.env, () => new Date(deps.clock.now())),
	};
	return {settings, secrets, directory, backend, client, service, keyStatus, model, receiver, store, volatileWarning, warning, folderWarnings, events};
}

/** The screen's status line: health, waiting events, a volatile Redis, the admin address. */
export function statusOf(service: Service, volatile: string | undefined, adminUrl: string | undefined): {text: string; ok: boolean; next?: string} {
	const state = service.health.state();
	const waiting = service.waiting();
	const waitingPart = waiting.count > 0 ? ` · ${waitingText(waiting, clock)}` : '';
	const next = healthNext(state);
	return {text: `${healthText(state, clock, false)}${waitingPart}${volatile ? ` · warning: ${volatile}` : ''}${adminUrl ? ` · admin ${adminUrl}` : ''}`, ok: state.status === 'ready' && volatile === undefined, ...(next ? {next} : {})};
}

/** The live screen; Ink and React load only for it, so plain and NDJSON runs stay lean. */
export async function renderScreen(context: Deps['context'], props: Omit<ServeScreenProps, 'onQuit'>, onQuit: (force: boolean) => void): Promise<ReturnType<typeof renderApp>> {
	const [{ServeScreen}, {renderComponent}] = await loadScreen(async () => import('../../ui/serve/ServeScreen.js'));
	return renderComponent(context, ServeScreen, {...props, onQuit});
}

/** Lets the screen's last events render, then releases the terminal. */
export async function releaseScreen(app: ReturnType<typeof renderApp> | undefined, flushIntervalMs: number): Promise<void> {
	if (!app) {
		return;
	}

	await new Promise(resolve => {
		setTimeout(resolve, flushIntervalMs + 20);
	});
	app.unmount();
	await app.waitUntilExit();
}

/** Without the screen: the health and the waiting events as status lines (NDJSON records with --json). */
export function followStatus(deps: Deps, service: Service, volatileWarning: () => string | undefined, now: () => string): void {
	const showStatus = (state: ReturnType<typeof service.health.state>) => {
		const volatile = volatileWarning();
		deps.output.print({...healthRecord(state), ...(volatile ? {warning: volatile} : {})}, () => `${clock(state.since)}  status ${healthText(state, clock)}${volatile ? ` · warning: ${volatile}` : ''}\n`);
	};

	showStatus(service.health.state());
	service.health.on(showStatus);
	service.onWaiting(summary => {
		deps.output.print(waitingRecord(summary), () => `${clock(now())}  status ${waitingText(summary, clock)}\n`);
	});
}

