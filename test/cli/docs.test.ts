/**
 * The generated docs stay in step with the declarations: docs/flags.md is the flags table the
 * declarations give, every command module carries the words and summary of its registry entry,
 * and a command's usage line quoted in the other docs is the one it declares.
 * UPDATE_DOCS=1 writes the file again instead of failing.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {flagsMarkdown} from '../../source/cli/flags-doc.js';
import {registry} from '../../source/commands/registry.js';
import {loadCommand} from '../../source/cli/run-cli.js';

const docs = path.join(import.meta.dirname, '..', '..', 'docs');

function compare(file: string, generated: string): void {
	const target = path.join(docs, file);
	if (process.env.UPDATE_DOCS === '1') {
		writeFileSync(target, generated);
	}

	expect(readFileSync(target, 'utf8'), `docs/${file} is out of date; run UPDATE_DOCS=1 npx vitest run --config test/vitest.config.ts test/cli/docs.test.ts`).toBe(generated);
}

describe('generated docs', () => {
	it('docs/flags.md is the table the flag declarations give', async () => {
		compare('flags.md', await flagsMarkdown(registry));
	});

	it('every command is named as its registry entry names it', async () => {
		const quiet = {write: () => true} as unknown as NodeJS.WritableStream;
		for (const entry of registry) {
			const command = await loadCommand(entry, {stdout: quiet, stderr: quiet});
			expect(command?.name).toEqual(entry.words);
			expect(command?.summary).toBe(entry.summary);
		}
	});

	it('a command\'s usage quoted in the docs is its declared usage', async () => {
		const lines = readdirSync(docs).filter(file => file.endsWith('.md') && file !== 'flags.md')
			.flatMap(file => readFileSync(path.join(docs, file), 'utf8').split('\n').map(line => ({file, line: line.trim()})));
		let quoted = 0;
		for (const entry of registry) {
			const {usage} = (await entry.load()).default;
			// A usage line: the command's words, then its flags in brackets (an example has none).
			for (const {file, line} of lines.filter(({line}) => line.startsWith(`platform-tui ${entry.words.join(' ')} `) && line.includes(' [--') && !line.includes('#'))) {
				expect(line, `docs/${file} quotes the usage of ${entry.words.join(' ')}`).toBe(usage);
				quoted++;
			}
		}

		expect(quoted).toBeGreaterThan(0);
	});
});
