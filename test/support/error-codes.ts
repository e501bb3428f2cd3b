/**
 * Every error code the program can print with --json, collected from the code itself: the wording
 * tables of the core domains (every core error is worded there), the platform client's codes, the
 * dispatcher's own, and the literal codes of every UserError and UsageError in source/. Also every
 * code a core error class names (`extends …Error<'code'`, `super('code'`, `…Error('code'`), so a
 * core error without a wording is found too.
 */
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {unexpectedErrorCode} from '../../source/cli/error-message.js';
import {errorTables} from '../../source/cli/messages/wording.js';
import {dispatchErrorCodes} from '../../source/cli/run-cli.js';
import {platformErrorCodes} from '../../source/platform/errors.js';

const sourceRoot = path.join(import.meta.dirname, '..', '..', 'source');

function sourceFiles(directory: string): string[] {
	return readdirSync(directory, {withFileTypes: true}).flatMap(entry => {
		const full = path.join(directory, entry.name);
		if (entry.isDirectory()) {
			return sourceFiles(full);
		}

		return /\.tsx?$/.test(entry.name) ? [full] : [];
	});
}

export type CodeScan = {
	/** Codes of UserError / UsageError literals, with the file they are in. */
	thrown: Map<string, string>;
	/** `new UserError(` / `new UsageError(` calls whose first argument is not a code literal. */
	withoutLiteral: string[];
	/** Codes core error classes name in their source. */
	core: Set<string>;
};

export function scanSource(): CodeScan {
	const thrown = new Map<string, string>();
	const withoutLiteral: string[] = [];
	const core = new Set<string>();
	for (const file of sourceFiles(sourceRoot)) {
		const text = readFileSync(file, 'utf8');
		const relative = path.relative(sourceRoot, file);
		for (const match of text.matchAll(/new (?:UserError|UsageError)\(\s*(?:'([^']*)'|([^'\s]))/g)) {
			if (match[1] === undefined) {
				withoutLiteral.push(relative);
			} else {
				thrown.set(match[1], relative);
			}
		}

		for (const match of text.matchAll(/(?:CoreError|[A-Z]\w*Error)<\s*'([a-z][a-z0-9-]*)'|super\(\s*'([a-z][a-z0-9-]*)'|(?:journalError|[A-Z]\w*Error)\(\s*'([a-z][a-z0-9-]*)'/g)) {
			const code = match[1] ?? match[2] ?? match[3];
			if (code !== undefined && code.includes('-')) {
				core.add(code);
			}
		}
	}

	for (const code of thrown.keys()) {
		core.delete(code);
	}

	return {thrown, withoutLiteral, core};
}

/** Every code with a wording in a domain table. */
export function wordedCodes(): Set<string> {
	return new Set(errorTables.flatMap(table => Object.keys(table)));
}

/** Every code the program can raise. */
export function allCodes(): Set<string> {
	const scan = scanSource();
	return new Set([
		...wordedCodes(),
		...Object.values(platformErrorCodes),
		...Object.values(dispatchErrorCodes),
		unexpectedErrorCode,
		...scan.thrown.keys(),
		...scan.core,
	]);
}

/** The codes listed in the first column of the table under "## Codes" in docs/errors.md. */
export function documentedCodes(): Set<string> {
	const text = readFileSync(path.join(sourceRoot, '..', 'docs', 'errors.md'), 'utf8');
	const section = text.slice(text.indexOf('## Codes'));
	return new Set([...section.matchAll(/^\| `([^`]+)` \|/gm)].map(match => match[1] ?? ''));
}
