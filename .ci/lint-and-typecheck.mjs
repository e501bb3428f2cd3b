/**
 * CI's lint and the tests' typecheck in one pass over one TypeScript program: the program of
 * test/tsconfig.json (source/ and test/) is built once, its diagnostics are the typecheck, and
 * ESLint (eslint.config.js, unchanged) takes its type information from that same program instead
 * of building its own. `npm run lint` and `npm run typecheck` do the same checks separately.
 * Prints `lint: ok|FAILED` and `typecheck: ok|FAILED`; exits 1 when either failed.
 */
import path from 'node:path';
import process from 'node:process';
import {fileURLToPath} from 'node:url';
import {ESLint} from 'eslint';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const configPath = path.join(root, 'test', 'tsconfig.json');
const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic(diagnostic) {
	throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}});
if (!config) {
	throw new Error(`cannot read ${configPath}`);
}

const program = ts.createProgram({rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences});
const diagnostics = ts.getPreEmitDiagnostics(program);
const host = {getCanonicalFileName: name => name, getCurrentDirectory: () => root, getNewLine: () => '\n'};
if (diagnostics.length > 0) {
	process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
}

// Only the TypeScript files are linted with type information (the config turns it off for *.js).
const eslint = new ESLint({cwd: root, overrideConfig: [{files: ['**/*.ts', '**/*.tsx'], languageOptions: {parserOptions: {project: null, projectService: false, programs: [program]}}}]});
const results = await eslint.lintFiles(['source', 'test']);
const formatter = await eslint.loadFormatter('stylish');
const output = await formatter.format(results);
if (output) {
	process.stdout.write(output);
}

const lintFailed = results.some(result => result.errorCount > 0);
console.log(`lint: ${lintFailed ? 'FAILED' : 'ok'}`);
console.log(`typecheck: ${diagnostics.length > 0 ? 'FAILED' : 'ok'}`);
process.exitCode = lintFailed || diagnostics.length > 0 ? 1 : 0;
