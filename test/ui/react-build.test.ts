/** The React build a lazily loaded screen gets: production unless NODE_ENV names one, NODE_ENV set only while it loads. */
import {describe, expect, it} from 'vitest';
import {withReactBuild} from '../../source/ui/react-build.js';

describe('withReactBuild', () => {
	it('loads with NODE_ENV=production when it is unset, and leaves it unset after', async () => {
		const env: NodeJS.ProcessEnv = {PATH: '/bin'};
		const seen = await withReactBuild(async () => Promise.resolve(env.NODE_ENV), env);
		expect(seen).toBe('production');
		expect(env).toEqual({PATH: '/bin'});
	});

	it('restores an empty NODE_ENV, and leaves it unset when the load fails', async () => {
		const empty: NodeJS.ProcessEnv = {NODE_ENV: ''};
		expect(await withReactBuild(async () => Promise.resolve(empty.NODE_ENV), empty)).toBe('production');
		expect(empty).toEqual({NODE_ENV: ''});
		const failing: NodeJS.ProcessEnv = {};
		await expect(withReactBuild(async () => Promise.reject(new Error('no module')), failing)).rejects.toThrow('no module');
		expect(failing).toEqual({});
	});

	it('keeps the build NODE_ENV names (tests run the development build)', async () => {
		for (const name of ['test', 'development']) {
			const env: NodeJS.ProcessEnv = {NODE_ENV: name};
			expect(await withReactBuild(async () => Promise.resolve(env.NODE_ENV), env)).toBe(name);
			expect(env.NODE_ENV).toBe(name);
		}
	});
});
