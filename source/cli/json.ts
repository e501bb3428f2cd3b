/**
 * The one `--json` envelope (docs/json.md). Every NDJSON line on stdout is an object with a
 * `type`; the last line of every run is exactly one `result` or one `error`, carrying the ids the
 * run touched (chats, contents, events). Commands print their own lines; the dispatcher watches
 * them through `createJsonOutput` and end the run with the `result` or `error` line; a command
 * never prints either itself (upload's and chat's answer is a `reply` line).
 */
import {Writable} from 'node:stream';
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

export type TouchedIds = z.infer<typeof touchedIds>;

const idKeys = {chatId: 'chatIds', contentId: 'contentIds', eventId: 'eventIds', contentIds: 'contentIds', eventIds: 'eventIds', chatIds: 'chatIds'} as const;

/** Adds the ids a printed value names (`chatId`, `contentId(s)`, `eventId(s)`, an event's `id`) to `ids`. */
function collectIds(value: unknown, ids: Record<keyof TouchedIds, Set<string>>, depth = 0): void {
	if (depth > 4 || value === null || typeof value !== 'object') {
		return;
	}

	if (Array.isArray(value)) {
		for (const item of value) {
			collectIds(item, ids, depth + 1);
		}

		return;
	}

	const record = value as Record<string, unknown>;
	for (const [key, field] of Object.entries(record)) {
		const bucket = idKeys[key as keyof typeof idKeys] as keyof TouchedIds | undefined;
		if (bucket && typeof field === 'string') {
			ids[bucket].add(field);
		} else if (bucket && Array.isArray(field)) {
			for (const item of field) {
				if (typeof item === 'string') {
					ids[bucket].add(item);
				}
			}
		} else if (key !== 'body' && key !== 'headers') {
			collectIds(field, ids, depth + 1);
		}
	}

	// A stored event names itself by `id`, with the event's full name in `event`.
	if (depth === 0 && typeof record.id === 'string' && /^(event|event-id|replay|would-replay|exported)$/.test(String(record.type))) {
		ids.eventIds.add(record.id);
	}
}

export type JsonOutput = {
	/** What the command writes to: passes every byte to stdout and watches the lines. */
	stream: Writable & {isTTY?: boolean; columns?: number; rows?: number};
	/** Ends the run with the `result` or `error` line. */
	finish(end: {exitCode: number; command: string; profile?: string} | {error: {code: string; message: string; next: string; chatId?: string; resume?: string; profile?: string}}): Promise<void>;
};

export function createJsonOutput(stdout: NodeJS.WritableStream & {columns?: number}): JsonOutput {
	const ids = {chatIds: new Set<string>(), contentIds: new Set<string>(), eventIds: new Set<string>()};
	let partial = '';
	const watch = (text: string): void => {
		partial += text;
		const lines = partial.split('\n');
		partial = lines.pop() ?? '';
		for (const line of lines.filter(line => line.trim() !== '')) {
			try {
				const value = JSON.parse(line) as unknown;
				collectIds(value, ids);
			} catch {
				// Not JSON: the envelope test catches it; there are no ids to take from it.
			}
		}
	};

	const stream = new Writable({
		write(chunk: Buffer | string, _encoding, callback) {
			const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
			watch(text);
			// A write stdout refuses (its reader went away) is heard on stdout itself (output.ts):
			// passed on here it would be an 'error' of this stream that nobody hears.
			stdout.write(text, () => {
				callback();
			});
		},
	}) as JsonOutput['stream'];
	stream.isTTY = false;
	if (stdout.columns !== undefined) {
		stream.columns = stdout.columns;
	}

	const write = async (value: Record<string, unknown>): Promise<void> => new Promise(resolve => {
		stream.write(`${JSON.stringify(value)}\n`, () => {
			resolve();
		});
	});

	return {
		stream,
		async finish(end) {
			// Lines still queued in the stream are watched first.
			await new Promise<void>(resolve => {
				stream.write('', () => {
					resolve();
				});
			});
			const touched: TouchedIds = {chatIds: [...ids.chatIds], contentIds: [...ids.contentIds], eventIds: [...ids.eventIds]};
			if ('error' in end) {
				await write({type: 'error', ...end.error, ...touched});
				return;
			}

			await write({type: 'result', command: end.command, exitCode: end.exitCode, ...(end.profile === undefined ? {} : {profile: end.profile}), ...touched});
		},
	};
}
