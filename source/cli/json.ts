/**
 * The one `--json` envelope (docs/json.md). Every NDJSON line on stdout is an object with a
 * `type`; the last line of every run is exactly one `result` or one `error`, carrying the ids the
 * run touched (chats, contents, events). Commands hand their records to the run's writer
 * (json-writer.ts), which the dispatcher ends the run through with the `result` or `error` line;
 * a command never prints either itself (upload's and chat's answer is a `reply` line).
 */
import * as z from 'zod';

/** Any line: an object with a non-empty `type`. */
export const jsonLine = z.looseObject({type: z.string().min(1)});

/** The ids a run touched, on its last line. */
export const touchedIds = z.object({
	chatIds: z.array(z.string()),
	contentIds: z.array(z.string()),
	eventIds: z.array(z.string()),
});

/** The last line of a run that finished (exit 0, or 1 when some work failed but the command ran). */
export const resultLine = z.object({
	type: z.literal('result'),
	command: z.string().min(1),
	exitCode: z.number().int(),
	/** The profile of the config file the run used, when it is not `default`. */
	profile: z.string().min(1).optional(),
	...touchedIds.shape,
});

/** The last line of a run that ended with an error (or was cancelled: code `cancelled`). */
export const errorLine = z.object({
	type: z.literal('error'),
	code: z.string().min(1),
	message: z.string().min(1),
	next: z.string().min(1),
	/** A stopped upload: its chat and the command that resumes it. */
	chatId: z.string().min(1).optional(),
	resume: z.string().min(1).optional(),
	/** The profile of the config file the run used, when it is not `default`. */
	profile: z.string().min(1).optional(),
	...touchedIds.shape,
});

export const finalLine = z.discriminatedUnion('type', [resultLine, errorLine]);

/** The error a run ended with, as its `error` line says it (the ids come from the writer). */
export type RunError = Omit<z.infer<typeof errorLine>, 'type' | 'chatIds' | 'contentIds' | 'eventIds'>;
