import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {afterEach, describe, expect, it} from 'vitest';
import type {EventBackend} from '../../source/receiver/store/backend.js';
import {JournalError, openJournal} from '../../source/receiver/journal/index.js';
import {tempDataDir} from '../receiver/journal/helpers.js';
import {childrenOf} from '../support/children.js';
import {defined} from '../support/defined.js';
import {rootOnly} from '../support/root.js';
import {waitFor} from '../support/wait.js';

const runs = rootOnly('The PID namespace lock test');
const holderScript = fileURLToPath(new URL('../receiver/journal/fixtures/holder.ts', import.meta.url));
const open: EventBackend[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map(async backend => backend.close()));
	for (const child of children.splice(0)) {
		child.kill('SIGKILL');
	}
});

/** Runs the holder fixture as pid 1 of a PID namespace of its own (as a container's init). */
function inNamespace(directory: string): {child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null>} {
	const child = spawn('unshare', ['--pid', '--fork', '--kill-child', process.execPath, '--import', 'tsx', holderScript, directory, 'serve'], {stdio: ['pipe', 'pipe', 'pipe']});
	children.push(child);
	let said = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		said += chunk;
	});
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		said += chunk;
	});
	const exited = new Promise<number | null>(resolve => child.once('exit', resolve));
	return {child, output: () => said, exited};
}

describe.runIf(runs)('the owner lock across PID namespaces', () => {
	it('a serve that ran as pid 1 of another namespace: refused while it lives, taken over once it was killed', async () => {
		const directory = tempDataDir();
		const other = inNamespace(directory);
		await waitFor(() => other.output().includes('"ready":true'), {what: 'the serve in its own namespace'});
		expect(JSON.parse(other.output().split('\n')[0] ?? '{}')).toMatchObject({pid: 1});

		const refused = await openJournal({directory}).catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(JournalError);
		expect(refused).toMatchObject({code: 'journal-locked', data: {pid: 1}});

		// SIGKILL to the serve itself (pid 1 inside, another number here).
		const inner = defined(childrenOf(other.child.pid ?? 0)[0], 'the serve in its namespace, a child of unshare');
		process.kill(inner, 'SIGKILL');
		await other.exited;
		await waitFor(() => !existsSync(`/proc/${inner}`), {what: 'the killed serve gone'});
		// Pid 1 is alive here (this namespace's init), yet the lock is free: its owner is gone.
		const serve = await openJournal({directory});
		open.push(serve);
		expect(serve.kind).toBe('journal');
	});

	it('a second serve in another namespace, while this one holds the journal, is refused with the message', async () => {
		const directory = tempDataDir();
		const serve = await openJournal({directory});
		open.push(serve);
		const other = inNamespace(directory);
		await other.exited;
		expect(other.output()).toContain(`is in use by process ${process.pid}`);
		expect(other.output()).not.toContain('TypeError');
	});
});
