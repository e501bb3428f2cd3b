/**
 * Docs that are the output: every JSON line readme.md and docs/ show, checked against the one
 * declaration of the --json records (source/cli/json-records.ts), whose schemas the envelope test
 * (json-envelope.test.ts) checks against what each command prints. A ```json or ```ndjson block
 * holds whole lines: each must be a record of a declared type that matches its schema, and in
 * docs/json.md a record the section's command prints. An inline `{"type":…}` may leave members
 * out with `…`: its type must be declared, and each member it shows must be a field of that type
 * with a value of the field's kind.
 */
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import type * as z from 'zod';
import {jsonRecords, printsType, type JsonRecordType} from '../../source/cli/json-records.js';

const root = path.join(import.meta.dirname, '..', '..');
const pages = ['readme.md', ...readdirSync(path.join(root, 'docs')).filter(name => name.endsWith('.md')).map(name => `docs/${name}`)];

type Shown = {page: string; line: number; text: string; whole: boolean; section?: string};

/** Every JSON line a page shows: the lines of its json/ndjson blocks, and inline `{"type":…}` snippets (which may span lines). */
function shownLines(page: string): Shown[] {
	const lines = readFileSync(path.join(root, page), 'utf8').split('\n');
	const shown: Shown[] = [];
	let block: string | undefined;
	let section: string | undefined;
	let paragraph: {line: number; text: string} | undefined;
	const flush = (): void => {
		for (const match of paragraph?.text.matchAll(/`(\{"type":[^`]*\})`/g) ?? []) {
			shown.push({page, line: paragraph?.line ?? 0, text: match[1] ?? '', whole: false});
		}

		paragraph = undefined;
	};

	for (const [index, line] of lines.entries()) {
		const fence = /^\s*```(\w*)/.exec(line);
		if (fence) {
			flush();
			block = block === undefined ? fence[1] ?? '' : undefined;
		} else if (block === 'json' || block === 'ndjson') {
			if (line.trim() !== '') {
				shown.push({page, line: index + 1, text: line.trim(), whole: true, ...(section === undefined ? {} : {section})});
			}
		} else if (block === undefined && (line.trim() === '' || line.startsWith('#'))) {
			flush();
			section = line.startsWith('## ') ? line.slice(3).trim() : section;
		} else if (block === undefined) {
			// A snippet broken over lines is joined where the line broke (inside JSON, no space).
			paragraph = paragraph ? {line: paragraph.line, text: `${paragraph.text}${/[,:{[]$/.test(paragraph.text) ? '' : ' '}${line.trim()}`} : {line: index + 1, text: line.trim()};
		}
	}

	flush();
	return shown;
}

const elided = Symbol('elided');

/** Parses a snippet whose left-out members (`,…`) and values (`"key":…`) are written `…`. */
function parseSnippet(text: string): Record<string, unknown> {
	let out = '';
	let inString = false;
	for (let index = 0; index < text.length; index++) {
		const char = text[index] ?? '';
		if (inString) {
			out += char;
			if (char === '\\') {
				out += text[++index] ?? '';
			} else if (char === '"') {
				inString = false;
			}
		} else if (char === '"') {
			inString = true;
			out += char;
		} else if (char === '…') {
			// A left-out member (after `{` or `,`) goes; a left-out value becomes a marker.
			out = /[{,]\s*$/.test(out) ? out.replace(/,?\s*$/, '') : `${out}"@elided@"`;
			if (out.endsWith('{') && text[index + 1] === ',') {
				index++;
			}
		} else {
			out += char;
		}
	}

	// `[…]` is a list left out as a whole.
	return JSON.parse(out, (_key, value: unknown) => (value === '@elided@' || (Array.isArray(value) && value.includes(elided)) ? elided : value)) as Record<string, unknown>;
}

/** The field shapes a record's schema allows (a union: any of its options'); none for a loose object. */
function shapesOf(schema: z.ZodType): Array<Record<string, z.ZodType>> {
	const def = schema as unknown as {shape?: Record<string, z.ZodType>; options?: z.ZodType[]};
	return def.shape ? [def.shape] : (def.options ?? []).flatMap(shapesOf);
}

function isLoose(schema: z.ZodType): boolean {
	const catchall = (schema as unknown as {def?: {catchall?: {def?: {type?: string}}}}).def?.catchall?.def?.type;
	return catchall === 'unknown';
}

/** What is wrong with a shown line, or undefined. */
function problem(shown: Shown): string | undefined {
	let value: Record<string, unknown>;
	try {
		value = shown.whole ? JSON.parse(shown.text) as Record<string, unknown> : parseSnippet(shown.text);
	} catch (error) {
		return `is not JSON (${(error as Error).message})`;
	}

	const type = String(value.type);
	if (!(type in jsonRecords)) {
		return `has type "${type}", which no command prints (source/cli/json-records.ts)`;
	}

	const {schema} = jsonRecords[type as JsonRecordType];
	if (shown.whole) {
		const parsed = schema.safeParse(value);
		return parsed.success ? undefined : `does not match the "${type}" record: ${parsed.error.issues.map(issue => `${issue.path.join('.') || '(line)'}: ${issue.message}`).join('; ')}`;
	}

	const shapes = shapesOf(schema);
	for (const [key, field] of Object.entries(value)) {
		const fits = shapes.filter(shape => key in shape);
		if (fits.length === 0 && !isLoose(schema)) {
			return `shows "${key}", which a "${type}" record does not have`;
		}

		if (field !== elided && fits.length > 0 && !fits.some(shape => shape[key]?.safeParse(field).success)) {
			return `shows "${key}":${JSON.stringify(field)}, not what a "${type}" record holds there`;
		}
	}

	return undefined;
}

const shown = pages.flatMap(page => shownLines(page));

describe('every JSON line the docs show is the output', () => {
	it('finds the lines to check (blocks and inline)', () => {
		expect(shown.filter(line => line.whole).length).toBeGreaterThan(50);
		expect(shown.filter(line => !line.whole).length).toBeGreaterThan(5);
	});

	it.each(shown.map(line => [`${line.page}:${line.line}`, line] as const))('%s', (_where, line) => {
		expect(problem(line), line.text).toBeUndefined();
	});

	it('docs/json.md shows under each command only records that command prints', () => {
		const wrong = shown
			.filter(line => line.page === 'docs/json.md' && line.section?.startsWith('platform-tui '))
			.map(line => ({command: line.section?.slice('platform-tui '.length) ?? '', type: String((JSON.parse(line.text) as {type: unknown}).type)}))
			.filter(({command, type}) => type in jsonRecords && !printsType(command, type as JsonRecordType));
		expect(wrong).toEqual([]);
	});

	it('docs/json.md shows or names, under each command, every record it prints', () => {
		const docs = readFileSync(path.join(root, 'docs', 'json.md'), 'utf8');
		const sections = new Map(docs.split(/^## /m).slice(1).map(section => [section.split('\n')[0]?.trim() ?? '', section]));
		const missing = Object.entries(jsonRecords).flatMap(([type, {commands}]) => commands
			.filter(command => command !== '*')
			.filter(command => {
				const section = sections.get(`platform-tui ${command}`) ?? '';
				return !section.includes(`"type":"${type}"`) && !section.includes(`\`${type}\``);
			})
			.map(command => `${command}: ${type}`));
		expect(missing).toEqual([]);
	});

	it('catches the shapes the docs once showed', () => {
		const check = (text: string, whole: boolean) => problem({page: 'x', line: 1, text, whole});
		expect(check('{"type":"result","chatId":…,"reply":…,"failed":[…]}', false)).toMatch(/"chatId"/);
		expect(check('{"type":"recovered","file":"/j/data.mdb","journal":"/j","kept":"…","events":42,"ids":["evt_…"],"unreadable":0}', true)).toMatch(/ids/);
		expect(check('{"type":"rotated","rotated":true}', false)).toMatch(/no command prints/);
		expect(check('{"type":"error","code":"unknown-command",…}', false)).toBeUndefined();
		expect(check('{"type":"waiting","count":3,"nextAttemptAt":"…"}', false)).toBeUndefined();
	});
});
