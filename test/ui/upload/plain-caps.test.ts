/**
 * The plain lines that name files stay short for big folders (ten names, then "… N more"), and
 * the command that continues a stopped upload is one a POSIX shell reads back word for word.
 */
import {execFileSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {resumeCommand, shellQuote} from '../../../source/commands/upload/resume.js';
import {cappedNames, plainLine} from '../../../source/ui/upload/plain.js';

const names = Array.from({length: 300}, (_, index) => `doc${String(index).padStart(3, '0')}.txt`);

describe('plain lines of a big folder', () => {
	it('the Files: line names ten files, then how many more', () => {
		const line = plainLine({type: 'files-listed', folder: '/data', files: names.map(name => ({name, size: 16_384, mimeType: 'text/plain'})), totalBytes: 300 * 16_384, skipped: []});
		expect(line).toBe(`Files: 300 in /data (4.69 MiB): ${names.slice(0, 10).join(', ')}, … 290 more`);
		expect(cappedNames(names.slice(0, 10))).toBe(names.slice(0, 10).join(', '));
	});

	it('the Unchanged: and Delete: lines are capped the same way', () => {
		const line = plainLine({
			type: 'sync-planned',
			dryRun: false,
			upload: [],
			replace: [],
			awaiting: [],
			unchanged: names.map(name => ({name, size: 1, contentId: `cont_${name}`})),
			delete: names.slice(0, 12).map(name => ({name, contentId: `cont_${name}`})),
		}) ?? '';
		expect(line).toContain(`Unchanged: 300 files skipped (300 B): ${names.slice(0, 10).join(', ')}, … 290 more`);
		expect(line).toContain(`Delete: 12 contents whose file is gone: ${names.slice(0, 10).join(', ')}, … 2 more`);
	});
});

describe('the command that continues an upload', () => {
	const sync = {include: ['**/*.md'], exclude: ['drafts/**'], recursive: true, dryRun: false, interactive: false, delete: true, deleteExcluded: false, maxDelete: 5, minAgeMs: 30_000};

	it('quotes only what needs quoting, and a shell reads every word back', () => {
		expect(shellQuote('chat_123')).toBe('chat_123');
		expect(shellQuote('./docs')).toBe('./docs');
		const folder = '/tmp/my docs/it\'s $HOME';
		const prompt = 'What\'s new? "Quoted" `ticks` and $(no subshell)';
		const command = resumeCommand({folder, prompt, keepGoing: true, sync}, 'chat_123');
		expect(command.startsWith('platform-tui upload \'/tmp/my docs/it\'\\\'\'s $HOME\' ')).toBe(true);
		const words = execFileSync('sh', ['-c', `for word in ${command}; do printf '%s\\0' "$word"; done`], {encoding: 'utf8'}).split('\0').slice(0, -1);
		expect(words).toEqual(['platform-tui', 'upload', folder, prompt, '--chat', 'chat_123', '--keep-going', '--recursive', '--include', '**/*.md', '--exclude', 'drafts/**', '--min-age', '30s', '--delete', '--max-delete', '5']);
	});
});
