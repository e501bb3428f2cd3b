/**
 * The three tiers of the suite, decided from what each test file does rather than from a list kept
 * by hand: `process` when it (or a test helper it calls) starts another program — the built CLI, a
 * pseudo-terminal, redis-server, a shell, any child process; `integration` when it talks over
 * loopback in-process (the local platform, a recording server, an HTTP or TCP socket); `unit`
 * otherwise (pure code and files). A helper counts only for the functions a file imports from it,
 * so a helper module with one process-starting function does not pull every importer up a tier.
 * test/vitest.config.ts runs each tier as a project; test/cli/tiers.test.ts checks the rules.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';

export type Tier = 'unit' | 'integration' | 'process';

const rank: Record<Tier, number> = {unit: 0, integration: 1, process: 2};

/** Node modules whose use puts code in a tier (any identifier imported from them, when used). */
const moduleTiers: Array<[RegExp, Tier]> = [
	[/^node:child_process$/, 'process'],
	[/^(node:http|node:https|node:net|undici)$/, 'integration'],
	[/\/source\/local-platform\//, 'integration'],
];

type Parsed = {
	/** Top-level declarations: name → its text. */
	declarations: Map<string, string>;
	/** Imported identifier → the module it comes from (as written). */
	imports: Map<string, string>;
};

const parsedFiles = new Map<string, Parsed>();

function parse(file: string): Parsed {
	const cached = parsedFiles.get(file);
	if (cached) {
		return cached;
	}

	const source = readFileSync(file, 'utf8');
	const imports = new Map<string, string>();
	for (const match of source.matchAll(/^import\s+(?:type\s+)?([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/gm)) {
		const names = (match[1] ?? '').replaceAll(/[{}]/g, ',').split(',');
		for (const raw of names) {
			const name = raw.trim().replace(/^type\s+/, '').split(/\s+as\s+/).at(-1)?.trim();
			if (name) {
				imports.set(name, match[2] ?? '');
			}
		}
	}

	const declarations = new Map<string, string>();
	const chunks = source.split(/^(?=(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|class)\s)/m);
	for (const chunk of chunks) {
		const name = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|class)\s+(\w+)/.exec(chunk)?.[1];
		if (name) {
			declarations.set(name, chunk);
		}
	}

	const parsed = {declarations, imports};
	parsedFiles.set(file, parsed);
	return parsed;
}

/** The text of the named declarations and of every local declaration they use. */
function reachableText(parsed: Parsed, names: Iterable<string>): string {
	const pending = [...names];
	const seen = new Set<string>();
	let text = '';
	while (pending.length > 0) {
		const name = pending.pop() ?? '';
		const declaration = parsed.declarations.get(name);
		if (seen.has(name) || declaration === undefined) {
			continue;
		}

		seen.add(name);
		text += `${declaration}\n`;
		for (const other of parsed.declarations.keys()) {
			if (!seen.has(other) && new RegExp(`\\b${other}\\b`).test(declaration)) {
				pending.push(other);
			}
		}
	}

	return text;
}

function resolveHelper(from: string, specifier: string, testRoot: string): string | undefined {
	if (!specifier.startsWith('.')) {
		return undefined;
	}

	const target = path.resolve(path.dirname(from), specifier);
	if (!target.startsWith(testRoot + path.sep)) {
		return undefined;
	}

	return [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target].find(candidate => existsSync(candidate));
}

/** The tier of some code: `names` of a helper file's declarations, or the whole file. */
function tierOfCode(file: string, testRoot: string, names: string[] | undefined, depth: number): Tier {
	const parsed = parse(file);
	const text = names === undefined ? readFileSync(file, 'utf8').replaceAll(/^import\s[\s\S]*?from\s+['"][^'"]+['"];?$/gm, '') : reachableText(parsed, names);
	let tier: Tier = 'unit';
	const helpersUsed = new Map<string, string[]>();
	for (const [name, specifier] of parsed.imports) {
		if (!new RegExp(`\\b${name}\\b`).test(text)) {
			continue;
		}

		const moduleTier = moduleTiers.find(([pattern]) => pattern.test(specifier))?.[1];
		if (moduleTier !== undefined && rank[moduleTier] > rank[tier]) {
			tier = moduleTier;
		}

		const helper = resolveHelper(file, specifier, testRoot);
		if (helper !== undefined) {
			helpersUsed.set(helper, [...helpersUsed.get(helper) ?? [], name]);
		}
	}

	if (depth < 8) {
		for (const [helper, used] of helpersUsed) {
			const helperTier = tierOfCode(helper, testRoot, used, depth + 1);
			if (rank[helperTier] > rank[tier]) {
				tier = helperTier;
			}
		}
	}

	return tier;
}

/** The tier of one test file. */
export function tierOf(file: string, testFolder: string): Tier {
	return tierOfCode(path.resolve(file), path.resolve(testFolder), undefined, 0);
}

/** Every test file under `testRoot` (paths relative to the folder above it), by tier. */
export function testFilesByTier(testFolder: string): Record<Tier, string[]> {
	const testRoot = path.resolve(testFolder);
	const tiers: Record<Tier, string[]> = {unit: [], integration: [], process: []};
	const walk = (directory: string) => {
		for (const entry of readdirSync(directory, {withFileTypes: true})) {
			const full = path.join(directory, entry.name);
			if (entry.isDirectory()) {
				walk(full);
			} else if (/\.test\.tsx?$/.test(entry.name)) {
				tiers[tierOf(full, testRoot)].push(path.relative(path.dirname(testRoot), full));
			}
		}
	};

	walk(testRoot);
	for (const files of Object.values(tiers)) {
		files.sort();
	}

	return tiers;
}
