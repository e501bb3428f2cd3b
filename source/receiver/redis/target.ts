/**
 * The Redis a `--redis` URL names. Pure (no driver loaded): the flag parser checks URLs with it.
 *
 * - `redis://[user:password@]host:port[/db]`, `rediss://…` (TLS): one server.
 * - `redis+cluster://[user:password@]host:port,host:port`, `rediss+cluster://…`: a Redis Cluster,
 *   found through any of the seed nodes.
 * - `redis+sentinel://[user:password@]host:port,host:port/mastername[/db]`, `rediss+sentinel://…`:
 *   the primary Sentinel names for `mastername`, followed across failovers. The credentials are the
 *   primary's; `?sentinelPassword=…` (and `sentinelUsername`) when the Sentinels ask for their own.
 */
export type RedisNode = {host: string; port: number};

export type RedisTarget =
	| {kind: 'single'; url: string; tls: boolean}
	| {kind: 'cluster'; nodes: RedisNode[]; tls: boolean; username?: string; password?: string}
	| {kind: 'sentinel'; nodes: RedisNode[]; tls: boolean; name: string; db?: number; username?: string; password?: string; sentinelUsername?: string; sentinelPassword?: string};

const multiHost = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/i;

function nodesOf(list: string): RedisNode[] | undefined {
	const nodes = list.split(',').map(item => {
		const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(item.trim());
		const port = Number(match?.[2] ?? '6379');
		return match?.[1] && port > 0 && port < 65_536 ? {host: match[1].replace(/^\[|\]$/g, ''), port} : undefined;
	});
	return nodes.length > 0 && nodes.every(node => node !== undefined) ? nodes : undefined;
}

function credentials(userinfo: string | undefined): {username?: string; password?: string} {
	if (userinfo === undefined || userinfo === '') {
		return {};
	}

	const colon = userinfo.indexOf(':');
	const username = decodeURIComponent(colon === -1 ? userinfo : userinfo.slice(0, colon));
	const password = colon === -1 ? undefined : decodeURIComponent(userinfo.slice(colon + 1));
	return {...(username ? {username} : {}), ...(password ? {password} : {})};
}

/** The target of a Redis URL, or undefined when it is none of the forms above. */
export function parseRedisTarget(url: string): RedisTarget | undefined {
	const match = multiHost.exec(url.trim());
	if (match === null) {
		const parsed = URL.canParse(url) ? new URL(url) : undefined;
		return parsed && (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') ? {kind: 'single', url, tls: parsed.protocol === 'rediss:'} : undefined;
	}

	const [, scheme = '', kind, userinfo, hosts = '', path = '', query = ''] = match;
	const nodes = nodesOf(hosts);
	if (nodes === undefined) {
		return undefined;
	}

	const tls = scheme.toLowerCase() === 'rediss';
	const auth = credentials(userinfo);
	if (kind?.toLowerCase() === 'cluster') {
		return path === '' || path === '/' ? {kind: 'cluster', nodes, tls, ...auth} : undefined;
	}

	const [name = '', db, ...rest] = path.split('/').filter(part => part !== '');
	if (name === '' || rest.length > 0 || (db !== undefined && !/^\d+$/.test(db))) {
		return undefined;
	}

	const parameters = new URLSearchParams(query);
	const sentinelUsername = parameters.get('sentinelUsername') ?? undefined;
	const sentinelPassword = parameters.get('sentinelPassword') ?? undefined;
	return {
		kind: 'sentinel',
		nodes,
		tls,
		name: decodeURIComponent(name),
		...(db === undefined ? {} : {db: Number(db)}),
		...auth,
		...(sentinelUsername ? {sentinelUsername} : {}),
		...(sentinelPassword ? {sentinelPassword} : {}),
	};
}

/**
 * The key prefix of a target: in a Cluster it is hash-tagged (`{platform-tui}`), so every BullMQ
 * key of a queue (and the ids held beside them) lands in one slot, as BullMQ's scripts need.
 */
export function prefixFor(target: RedisTarget, prefix: string): string {
	return target.kind === 'cluster' && !/\{[^}]+\}/.test(prefix) ? `{${prefix}}` : prefix;
}
