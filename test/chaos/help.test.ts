/** `npm run chaos -- --help` prints the chaos run's usage, each flag with its default, and starts nothing. */
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {childEnv} from '../support/cli.js';

const script = fileURLToPath(new URL('run.ts', import.meta.url));

describe('the chaos run', () => {
	it('prints its usage for --help and exits 0; an unknown flag gets the usage and exit 1', () => {
		const help = spawnSync(process.execPath, ['--import', 'tsx', script, '--help'], {encoding: 'utf8', env: childEnv(), timeout: 120_000});
		expect(help.status, help.stderr).toBe(0);
		expect(help.stdout).toMatch(/^Usage: npm run chaos -- /);
		expect(help.stdout).toContain('--kinds (default sigkill,');
		expect(help.stdout).not.toContain('chaos: seed');
		const unknown = spawnSync(process.execPath, ['--import', 'tsx', script, '--no-such-flag'], {encoding: 'utf8', env: childEnv(), timeout: 120_000});
		expect(unknown.status).toBe(1);
		expect(unknown.stderr).toContain('Unknown option \'--no-such-flag\'');
		expect(unknown.stderr).toContain('Usage: npm run chaos -- ');
		expect(unknown.stderr).not.toMatch(/\n\s+at /);
	});
});
