/**
 * The environments tests run commands in: the test file's own config and data dirs, never the
 * developer's settings, plus the test's additions (`undefined` removes a variable).
 */
export function withTestDirs(base: NodeJS.ProcessEnv, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {
		...base,
		PLATFORM_TUI_CONFIG_DIR: process.env.PLATFORM_TUI_CONFIG_DIR,
		PLATFORM_TUI_DATA_DIR: process.env.PLATFORM_TUI_DATA_DIR,
	};
	for (const [name, value] of Object.entries(extra)) {
		if (value === undefined) {
			Reflect.deleteProperty(env, name);
		} else {
			env[name] = value;
		}
	}

	return env;
}
