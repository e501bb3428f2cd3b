/**
 * serve's admin listener, for operators and their probes (never the webhook's port):
 * `GET /livez` (200 while the event loop turns), `GET /readyz` (200 `{"ready":true}` only when the
 * store takes events, the platform answered its last check and serve is not draining; else 503
 * with the reasons) and `GET /metrics` (Prometheus text, prom-client).
 */
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {sendJson} from '../../platform/json-response.js';
import type {HealthMonitor} from './health.js';
import type {ServeMetrics} from './metrics.js';
import {pathOf} from '../intake/transport.js';

export type AdminOptions = {
	health: HealthMonitor;
	metrics: ServeMetrics;
};

export type AdminListener = {url: string; close(): Promise<void>};

const routes = 'GET /livez, GET /readyz, GET /metrics';

export async function startAdmin(options: AdminOptions, listen: {port: number; host: string}): Promise<AdminListener> {
	const {health, metrics} = options;
	const server: Server = createServer({requestTimeout: 10_000, headersTimeout: 5000}, (request, response) => {
		const path = pathOf(request.url);
		if (request.method !== 'GET' && request.method !== 'HEAD') {
			request.resume();
			sendJson(response, 405, {error: `Method ${request.method ?? ''} not allowed; the admin listener serves ${routes}`}, {allow: 'GET, HEAD'});
			return;
		}

		switch (path) {
			case '/livez': {
				sendJson(response, 200, {live: true});
				return;
			}

			case '/readyz': {
				// The store is looked at now; the platform as its last check found it.
				void health.checkStore().then(() => {
					const state = health.state();
					if (state.status === 'ready') {
						sendJson(response, 200, {ready: true});
					} else {
						sendJson(response, 503, {ready: false, reasons: state.reasons, since: state.since});
					}
				});
				return;
			}

			case '/metrics': {
				metrics.text().then(text => {
					response.writeHead(200, {'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text)});
					response.end(text);
				}, (error: unknown) => {
					sendJson(response, 500, {error: `metrics could not be collected: ${error instanceof Error ? error.message : String(error)}`});
				});
				return;
			}

			default: {
				sendJson(response, 404, {error: `Not found: ${path}; the admin listener serves ${routes}`});
			}
		}
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(listen.port, listen.host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address() as AddressInfo;
	const host = address.address.includes(':') ? `[${address.address}]` : address.address;
	return {
		url: `http://${host}:${address.port}`,
		async close() {
			server.closeAllConnections();
			await new Promise<void>(resolve => {
				server.close(() => {
					resolve();
				});
			});
		},
	};
}
