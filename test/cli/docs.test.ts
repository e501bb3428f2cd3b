/**
 * The generated docs stay in step with the declarations: docs/flags.md is the flags table the
 * declarations give, and every command module carries the words and summary of its registry entry.
 * UPDATE_DOCS=1 writes the file again instead of failing.
 */
import {readFileSync, writeFileSync} from 'node:fs';
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
});
