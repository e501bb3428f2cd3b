/**
 * The per-delivery objects keep one hidden class whatever the delivery carries: V8's
 * %HaveSameMap, in a child process started with --allow-natives-syntax (fixtures/shapes.ts). A
 * field added after an object is built, or a spread followed by added keys, gives objects of the
 * same kind different hidden classes and fails this.
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const script = fileURLToPath(new URL('fixtures/shapes.ts', import.meta.url));

describe('one hidden class per object on the per-delivery path', () => {
	it('gives every stored event, log view and journal record one shape, for every kind of delivery', () => {
		const directory = mkdtempSync(path.join(tmpdir(), 'platform-tui-shapes-'));
		try {
			const result = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', script, directory], {encoding: 'utf8'});
			expect(result.stderr).toBe('');
			expect(JSON.parse(result.stdout)).toEqual({
				handling: ['logged', 'logged', 'logged', 'queued', 'invalid', 'unhandled'],
				stored: 240,
				events: true,
				views: true,
				records: true,
			});
		} finally {
			rmSync(directory, {recursive: true, force: true});
		}
	});
});
