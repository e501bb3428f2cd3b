/**
 * Which React build a full-screen command loads. React picks its build from NODE_ENV when it is
 * first imported; unset, that is the development build (its reconciler alone is 750 kB against
 * 400 kB to read and compile), which also checks every render and records its timings as
 * performance measures, allocating as the list scrolls. A command that loads its Ink
 * screen lazily imports it through here: the production build unless NODE_ENV names one (tests
 * run with NODE_ENV=test and keep the development build's checks). NODE_ENV is set only while the
 * modules load, so the editor and other programs the command starts see the environment as given.
 */
import type * as Render from './render.js';

export async function withReactBuild<T>(load: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
	if (env.NODE_ENV !== undefined && env.NODE_ENV !== '') {
		return load();
	}

	const given = env.NODE_ENV;
	env.NODE_ENV = 'production';
	try {
		return await load();
	} finally {
		if (given === undefined) {
			delete env.NODE_ENV;
		} else {
			env.NODE_ENV = given;
		}
	}
}

/** A screen's module and the renderer (render.ts), loaded together through withReactBuild. */
export async function loadScreen<Screen>(load: () => Promise<Screen>): Promise<[Screen, typeof Render]> {
	return withReactBuild(async () => Promise.all([load(), import('./render.js')]));
}
