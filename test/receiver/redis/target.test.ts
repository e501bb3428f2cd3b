/** The `--redis` URL forms: one server, a Cluster, Sentinel, each with TLS; masked in every output. */
import {describe, expect, it} from 'vitest';
import {parseStore} from '../../../source/commands/events/store-flags.js';
import {parseServe} from '../../../source/commands/serve/flags.js';
import {maskUrl} from '../../../source/format/secret.js';
import {parseRedisTarget, prefixFor} from '../../../source/receiver/redis/target.js';

describe('Redis URL forms', () => {
	it('reads a server, a Cluster and Sentinel, with TLS and credentials', () => {
		expect(parseRedisTarget('redis://127.0.0.1:6379')).toEqual({kind: 'single', url: 'redis://127.0.0.1:6379', tls: false});
		expect(parseRedisTarget('rediss+cluster://app:s%40cret@node-1.example:6380,node-2.example:6380')).toEqual({
			kind: 'cluster',
			nodes: [{host: 'node-1.example', port: 6380}, {host: 'node-2.example', port: 6380}],
			tls: true,
			username: 'app',
			password: 's@cret',
		});
		expect(parseRedisTarget('redis+sentinel://:pw@10.0.0.1:26379,10.0.0.2/events-primary/2?sentinelPassword=sp')).toEqual({
			kind: 'sentinel',
			nodes: [{host: '10.0.0.1', port: 26_379}, {host: '10.0.0.2', port: 6379}],
			tls: false,
			name: 'events-primary',
			db: 2,
			password: 'pw',
			sentinelPassword: 'sp',
		});
	});

	it('refuses what is none of them', () => {
		for (const url of ['http://127.0.0.1:6379', 'redis+sentinel://127.0.0.1:26379', 'redis+cluster://127.0.0.1:7000/queue', 'redis+cluster://host:99999', 'redis+mesh://a:1']) {
			expect(parseRedisTarget(url)).toBeUndefined();
		}

		expect(() => parseStore({redis: 'redis+sentinel://127.0.0.1:26379'}, {})).toThrow(/--redis must be a URL starting with redis:\/\/ or rediss:\/\//);
		expect(parseStore({}, {PLATFORM_REDIS_URL: 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001'})).toEqual({redisUrl: 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001'});
		expect(() => parseServe({argv: [], flags: {redis: 'redis+cluster://127.0.0.1:7000', redisWaitReplicas: 1}, env: {}})).toThrow(/--redis-wait-replicas must be left out with a Redis Cluster/);
	});

	it('hash-tags the prefix in a Cluster only', () => {
		const cluster = parseRedisTarget('redis+cluster://127.0.0.1:7000');
		const single = parseRedisTarget('redis://127.0.0.1:6379');
		expect(cluster && prefixFor(cluster, 'platform-tui')).toBe('{platform-tui}');
		expect(cluster && prefixFor(cluster, '{mine}')).toBe('{mine}');
		expect(single && prefixFor(single, 'platform-tui')).toBe('platform-tui');
	});

	it('masks the password of a multi-host URL', () => {
		expect(maskUrl('rediss+cluster://app:averylongpassword@node-1:6380,node-2:6380')).toBe('rediss+cluster://app:…word@node-1:6380,node-2:6380');
		expect(maskUrl('redis+sentinel://:short@a:26379,b:26379/primary')).toBe('redis+sentinel://:…@a:26379,b:26379/primary');
		expect(maskUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001')).toBe('redis+cluster://127.0.0.1:7000,127.0.0.1:7001');
		expect(maskUrl('redis+sentinel://app@a:26379,b:26379/primary')).toBe('redis+sentinel://app@a:26379,b:26379/primary');
	});
});
