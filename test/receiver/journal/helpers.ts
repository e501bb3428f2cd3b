import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach} from 'vitest';
import type {EventBackend, NewEvent} from '../../../source/receiver/store/backend.js';
import {openJournal, type JournalOptions} from '../../../source/receiver/journal/index.js';
import {waitFor} from '../../support/wait.js';

export function tempDataDir(): string {
	return mkdtempSync(path.join(tmpdir(), 'platform-tui-journal-'));
}

export const newId = () => `evt_${randomBytes(12).toString('hex')}`;

export function newEvent(overrides: Partial<NewEvent> = {}): NewEvent {
	const id = overrides.id ?? newId();
	return {
		id,
		event: 'platform.chat.external-module.chosen',
		receivedAt: new Date().toISOString(),
		body: JSON.stringify({id, event: 'platform.chat.external-module.chosen', payload: {chatid: 'chat_1'}}),
		headers: {'x-platform-signature': 'abcdef0123456789', 'x-platform-id': id},
		chatId: 'chat_1',
		status: 'received',
		...overrides,
	};
}

const holderScript = fileURLToPath(new URL('fixtures/holder.ts', import.meta.url));

export type Holder = {child: ChildProcessWithoutNullStreams; pid: number; info: Record<string, unknown>; kill(): Promise<void>; output(): string};

/** Starts the holder fixture and waits for its ready line. */
export async function startHolder(directory: string, action: 'serve' | 'replay' | 'crash' | 'accept' | 'acked' | 'stream', id = ''): Promise<Holder> {
	const child = spawn(process.execPath, ['--import', 'tsx', holderScript, directory, action, id], {stdio: ['pipe', 'pipe', 'pipe']});
	let out = '';
	let errors = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		out += chunk;
	});
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		errors += chunk;
	});
	const closed = new Promise<void>(resolve => {
		child.on('close', () => {
			resolve();
		});
	});
	const kill = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			child.kill('SIGKILL');
		}

		await closed;
	};

	try {
		await waitFor(() => out.includes('\n') || child.exitCode !== null);
	} catch (error) {
		await kill();
		throw new Error(`holder did not get ready: ${errors}`, {cause: error});
	}

	if (!out.includes('\n')) {
		throw new Error(`holder exited: ${errors}`);
	}

	const info = JSON.parse(out.split('\n')[0] ?? '{}') as Record<string, unknown>;
	return {child, pid: child.pid ?? 0, info, kill, output: () => out};
}

/**
 * The journals a test file opens and the holder processes it starts: `journal` opens one (as
 * `openJournal`), `holders` takes what `startHolder` gives; after each test the journals are closed
 * and the holders killed.
 */
export function openedPerTest(): {journal: (directory: string, options?: Partial<JournalOptions>) => Promise<EventBackend>; holders: Holder[]} {
	const open: EventBackend[] = [];
	const holders: Holder[] = [];
	afterEach(async () => {
		await Promise.all(open.splice(0).map(async backend => backend.close()));
		await Promise.all(holders.splice(0).map(async holder => holder.kill()));
	});
	return {
		journal: async (directory, options = {}) => {
			const backend = await openJournal({directory, ...options});
			open.push(backend);
			return backend;
		},
		holders,
	};
}
