import type {CommandModule} from './types.js';

/** A command whose issue has not landed yet: it says so and exits 1. */
export function notYetAvailable(name: string, usage: string, description: string): CommandModule {
	return {
		usage,
		description,
		flags: {},
		async run(context) {
			context.stderr.write(`platform-tui ${name} is not available yet.\n`);
			return 1;
		},
	};
}
