/**
 * `platform-tui serve --json` as child processes of a test file (the built CLI, cli.ts): each one
 * started is kept, so the file's afterEach ends those still running and waits for each to close.
 */
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startCli, type CliProcess} from './cli.js';
import {waitFor} from './wait.js';

export type ServeChild = CliProcess & {
	/** The receiver's URL, from the `listening` line. */
	url: string;
	/** The admin server's URL, from the `listening` line (with `--admin-port`; else empty). */
	adminUrl: string;
	/** The NDJSON lines written so far. */
	events(): Array<Record<string, unknown>>;
};

/** The settings serve needs to answer for a local platform (through the environment). */
export function serveEnv(platform: LocalPlatform): Record<string, string> {
	return {PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: platform.apiKey, PLATFORM_APP_ID: platform.appId, PLATFORM_ENDPOINT_SECRET: platform.endpointSecret};
}

/** The serve children of a test file: `start` one, `stopAll` in afterEach. */
export function serveChildren() {
	const running: ServeChild[] = [];
	return {
		/**
		 * Starts `serve --port 0 --json` with `args` and `env`; resolves once its first line says it
		 * listens, and fails with that line and serve's stderr when it does not.
		 */
		async start(args: string[], env: Record<string, string | undefined>): Promise<ServeChild> {
			const run = startCli(['serve', '--port', '0', '--json', ...args], {env});
			const events = () => run.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
			const serve: ServeChild = {...run, url: '', adminUrl: '', events};
			// Kept before it listens, so one that fails to start is ended too.
			running.push(serve);
			const first = await waitFor(() => events()[0] ?? (run.child.exitCode === null ? undefined : {failed: run.stderr()}), {until: value => value !== undefined, what: 'serve to listen'});
			if (first?.type !== 'listening') {
				throw new Error(`serve did not start: ${JSON.stringify(first)} ${run.stderr()}`);
			}

			serve.url = String(first.url);
			serve.adminUrl = typeof first.adminUrl === 'string' ? first.adminUrl : '';
			return serve;
		},
		/** Kills (SIGKILL) the children still running and waits until every one started has closed. */
		async stopAll(): Promise<void> {
			for (const serve of running.splice(0)) {
				if (serve.child.exitCode === null && serve.child.signalCode === null) {
					serve.child.kill('SIGKILL');
				}

				await serve.closed;
			}
		},
	};
}
