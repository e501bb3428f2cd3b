/** The shape of the per-domain wording tables (one per core domain, owned by that domain). */

/** What the user reads: one sentence (what failed, naming the file/chat/content id) and the next step. */
export type ErrorWording = {message: string; next?: string};

/**
 * Keyed by a core error's `code`; gets that error's `data`. Each table reads the data shapes of its
 * own codes, so the parameter is typed where each entry is written.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- entries declare their own data shape; `unknown` would make every typed entry unassignable
export type MessageTable = Record<string, (data: any) => ErrorWording>;
