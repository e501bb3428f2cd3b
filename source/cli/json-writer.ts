/**
 * The run's writer with --json (docs/json.md): every record a command hands over is checked
 * against its declaration (json-records.ts) and printed as one NDJSON line; the ids it names in the
 * fields declared with `touches`, and those handed over with `touched`, are kept for the last
 * line, which the dispatcher writes through `result` or `error`. Nothing reads stdout back.
 */
import * as z from 'zod';
import type {TouchedIds} from '../context.js';
import {errorLine, resultLine} from './json.js';
import {jsonRecords, touchedFields, type JsonRecordType} from './json-records.js';
import {createSink, type RunOutput} from './output.js';

/** A record the writer refuses: a type json-records.ts does not declare, or fields its schema does not allow. A mistake in the code. */
export class UndeclaredRecordError extends TypeError {
	constructor(type: string, problem: string) {
		super(`The --json record "${type}" ${problem} (source/cli/json-records.ts).`);
		this.name = 'UndeclaredRecordError';
	}
}

/** A field declared with `touches`: where it is in a record (`*`: each item of an array) and the list it goes to. */
type IdField = {path: readonly string[]; list: keyof TouchedIds};

/** The `touches` fields of a schema, depth first in the order of its shape. */
function idFields(schema: z.ZodType, path: readonly string[] = []): IdField[] {
	const declared = touchedFields.get(schema);
	if (declared) {
		return [{path, list: declared.touches}];
	}

	if (schema instanceof z.ZodObject) {
		return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]) => idFields(field, [...path, key]));
	}

	if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
		return idFields(schema.unwrap() as z.ZodType, path);
	}

	if (schema instanceof z.ZodArray) {
		return idFields(schema.element as z.ZodType, [...path, '*']);
	}

	return schema instanceof z.ZodUnion ? (schema.options as z.ZodType[]).flatMap(option => idFields(option, path)) : [];
}

/**
 * Adds every string at `path` (from `depth` on) in `value` to `into`: a string, or a list of
 * strings at its end. No array is made on the way (it runs for each record printed).
 */
function addValuesAt(value: unknown, path: readonly string[], depth: number, into: Set<string>): void {
	if (depth === path.length) {
		if (typeof value === 'string') {
			into.add(value);
		} else if (Array.isArray(value)) {
			for (const item of value as unknown[]) {
				if (typeof item === 'string') {
					into.add(item);
				}
			}
		}

		return;
	}

	const head = path[depth];
	if (head === '*') {
		if (Array.isArray(value)) {
			for (const item of value as unknown[]) {
				addValuesAt(item, path, depth + 1, into);
			}
		}
	} else if (head !== undefined && value !== null && typeof value === 'object') {
		addValuesAt((value as Record<string, unknown>)[head], path, depth + 1, into);
	}
}

const fieldsByType = new Map<JsonRecordType, IdField[]>();

function idFieldsOf(type: JsonRecordType): IdField[] {
	let fields = fieldsByType.get(type);
	if (!fields) {
		fields = idFields(jsonRecords[type].schema);
		fieldsByType.set(type, fields);
	}

	return fields;
}

/** Checks `record` against its declaration; throws UndeclaredRecordError when it does not match. */
export function checkRecord(record: {type: string}): JsonRecordType {
	if (!Object.hasOwn(jsonRecords, record.type)) {
		throw new UndeclaredRecordError(record.type, 'is not declared');
	}

	if (record.type === 'result' || record.type === 'error') {
		throw new UndeclaredRecordError(record.type, 'is the last line, which only the end of the run prints');
	}

	const type = record.type as JsonRecordType;
	const issue = jsonRecords[type].schema.safeParse(record).error?.issues[0];
	if (issue) {
		throw new UndeclaredRecordError(type, `does not match its declaration at ${issue.path.join('.') || 'the top'}: ${issue.message}`);
	}

	return type;
}

export function createJsonWriter(stdout: NodeJS.WritableStream): RunOutput {
	const sink = createSink(stdout);
	const ids = {chatIds: new Set<string>(), contentIds: new Set<string>(), eventIds: new Set<string>()};
	const touched = (more: Partial<TouchedIds>): void => {
		for (const list of ['chatIds', 'contentIds', 'eventIds'] as const) {
			for (const id of more[list] ?? []) {
				ids[list].add(id);
			}
		}
	};

	const lists = (): TouchedIds => ({chatIds: [...ids.chatIds], contentIds: [...ids.contentIds], eventIds: [...ids.eventIds]});
	// The last line is checked as every other line is, then written with what is collected.
	const end = (line: z.infer<typeof resultLine> | z.infer<typeof errorLine>): void => {
		(line.type === 'result' ? resultLine : errorLine).parse(line);
		sink.write(`${JSON.stringify(line)}\n`);
		sink.flush();
	};

	return {
		json: true,
		print(record) {
			const type = checkRecord(record);
			for (const {path, list} of idFieldsOf(type)) {
				addValuesAt(record, path, 0, ids[list]);
			}

			sink.write(`${JSON.stringify(record)}\n`);
		},
		touched,
		coalesce: sink.coalesce,
		result(command, exitCode, profile = {}) {
			end({type: 'result', command, exitCode, ...profile, ...lists()});
		},
		error(error) {
			touched({chatIds: error.chatId === undefined ? [] : [error.chatId]});
			end({type: 'error', ...error, ...lists()});
		},
	};
}
