/**
 * Every screen a command shows loads React through withReactBuild (source/ui/react-build.ts, or its
 * loadScreen): its production build unless NODE_ENV names one. Read from the source with
 * TypeScript's parser: no module of source/commands or source/cli imports React, Ink or a JSX
 * module up front, and each `import()` of one sits inside a call of those loaders.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {describe, expect, it} from 'vitest';

const sourceRoot = fileURLToPath(new URL('../../source/', import.meta.url));

type ModuleFacts = {
	jsx: boolean;
	/** Modules imported for their values when this one loads. */
	staticImports: string[];
	dynamicImports: Array<{specifier: string; wrapped: boolean; line: number}>;
};

const reactPackages = /^(react|react-dom|ink|ink-[\w-]+)(\/|$)/;

/** react-build.ts's loaders: withReactBuild, and loadScreen (a screen and the renderer through it). */
const loaders = new Set(['withReactBuild', 'loadScreen']);

function isWrapped(node: ts.Node): boolean {
	for (let parent = node.parent as ts.Node | undefined; parent; parent = parent.parent) {
		if (ts.isCallExpression(parent) && ts.isIdentifier(parent.expression) && loaders.has(parent.expression.text)) {
			return true;
		}
	}

	return false;
}

function valueImport(node: ts.ImportDeclaration): boolean {
	const clause = node.importClause;
	if (!clause) {
		return true;
	}

	if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) {
		return false;
	}

	const bindings = clause.namedBindings;
	const onlyTypes = clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every(element => element.isTypeOnly);
	return !onlyTypes;
}

function facts(file: string): ModuleFacts {
	const text = readFileSync(file, 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
	const found: ModuleFacts = {jsx: false, staticImports: [], dynamicImports: []};
	const visit = (node: ts.Node): void => {
		if (ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node) || ts.isJsxFragment(node)) {
			found.jsx = true;
		} else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && valueImport(node)) {
			found.staticImports.push(node.moduleSpecifier.text);
		} else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
			found.staticImports.push(node.moduleSpecifier.text);
		} else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
			const [argument] = node.arguments;
			if (argument && ts.isStringLiteral(argument)) {
				found.dynamicImports.push({specifier: argument.text, wrapped: isWrapped(node), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1});
			}
		}

		ts.forEachChild(node, visit);
	};

	visit(source);
	return found;
}

/** The source file a relative specifier names (`./x.js` is x.ts or x.tsx), or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
	if (!specifier.startsWith('.')) {
		return undefined;
	}

	const base = path.resolve(path.dirname(from), specifier).replace(/\.js$/, '');
	return ['.ts', '.tsx'].map(extension => base + extension).find(candidate => existsSync(candidate));
}

const reachCache = new Map<string, boolean>();

/** Whether loading `file` loads React: JSX in it, or a static import of React, Ink or such a module. */
function loadsReact(file: string): boolean {
	const cached = reachCache.get(file);
	if (cached !== undefined) {
		return cached;
	}

	reachCache.set(file, false);
	const {jsx, staticImports} = facts(file);
	const result = jsx || staticImports.some(specifier => importLoadsReact(file, specifier));
	reachCache.set(file, result);
	return result;
}

/** Whether importing `specifier` from `file` loads React. */
function importLoadsReact(file: string, specifier: string): boolean {
	const target = resolve(file, specifier);
	return reactPackages.test(specifier) || (target !== undefined && loadsReact(target));
}

function modulesUnder(folder: string): string[] {
	return readdirSync(folder, {recursive: true, encoding: 'utf8'})
		.filter(entry => /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts'))
		.map(entry => path.join(folder, entry));
}

const commandModules = [...modulesUnder(path.join(sourceRoot, 'commands')), ...modulesUnder(path.join(sourceRoot, 'cli'))];

describe('screens load React through withReactBuild', () => {
	it('finds the screens it checks (the rule reads the real modules)', () => {
		expect(loadsReact(path.join(sourceRoot, 'ui/serve/ServeScreen.tsx'))).toBe(true);
		expect(loadsReact(path.join(sourceRoot, 'ui/render.ts'))).toBe(true);
		expect(loadsReact(path.join(sourceRoot, 'ui/react-build.ts'))).toBe(false);
		const wrapped = commandModules.flatMap(file => facts(file).dynamicImports.filter(entry => entry.wrapped));
		// serve, keys rotate, keys set, init, upload, chat and events inspect load a screen.
		expect(wrapped.length).toBeGreaterThanOrEqual(7);
	});

	it('no command or CLI module loads React when it loads', () => {
		const eager = commandModules.filter(file => loadsReact(file));
		expect(eager.map(file => path.relative(sourceRoot, file))).toEqual([]);
	});

	it('every import() of a module that loads React is inside withReactBuild or loadScreen', () => {
		const bare = commandModules.flatMap(file => facts(file).dynamicImports
			.filter(entry => !entry.wrapped && importLoadsReact(file, entry.specifier))
			.map(entry => `${path.relative(sourceRoot, file)}:${entry.line} ${entry.specifier}`));
		expect(bare).toEqual([]);
	});
});
