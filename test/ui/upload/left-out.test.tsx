import {render} from 'ink-testing-library';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import {UploadApp} from '../../../source/ui/upload/app.js';
import {UploadViewModel} from '../../../source/ui/upload/state.js';
import {runUpload} from '../../../source/workflow/run-upload.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {makeFolder, recorder, startProxy, upsertKey} from '../../workflow/helpers.js';

/**
 * The screen of a --keep-going run whose upload failed for one file, fed with the events of a
 * real run against the local platform (the blob store refusing that file's PUT).
 */
describe('upload screen: files left out under --keep-going', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('shows the "Left out" section naming the file whose upload failed, and the reply for the others', async () => {
		const proxy = await startProxy(platform, {
			rewrite: (call, _status, body, proxyUrl) => (upsertKey(call) === 'b.txt' && !(call.body as {fileUrl?: string}).fileUrl ? {...(body as object), writeUrl: `${proxyUrl}/reject-blob/b`} : body),
		});
		const docs = makeFolder({'a.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n', 'b.txt': 'b'});
		const client = clientFor(platform, {baseUrl: proxy.url});
		const {events, onEvent} = recorder();
		try {
			await runUpload({client, folder: docs.dir, assistantId: platform.assistantId, prompt: 'How long is the warranty?', pollIntervalMs: 10, keepGoing: true}, onEvent);
		} finally {
			await client.close();
			await proxy.close();
			docs.cleanup();
		}

		const model = new UploadViewModel(() => 1_700_000_000_000, 'How long is the warranty?');
		const app = render(<UploadApp model={model} maxUpdatesPerSecond={1000} onCancel={() => undefined}/>);
		try {
			for (const event of events) {
				model.apply(event);
			}

			const frame = (): string => app.lastFrame() ?? '';
			await waitFor(() => frame().includes('Left out') && frame().includes('Done'), {what: `the screen to show the result\n${frame()}`});
			const screen = frame().replaceAll(/\s*\n\s*/g, ' ');
			expect(screen).toContain('Left out');
			expect(screen).toContain('✖ b.txt (upload: HTTP 403 from the blob store (Signature not valid for this blob))');
			expect(screen).toMatch(/Done: chat chat_\w+ · 1 file asked about · 1 left out/);
			expect(screen).toContain('two-year limited warranty');
			// The section comes after the reply, next to the summary line.
			expect(frame().indexOf('Left out')).toBeLessThan(frame().indexOf('Done'));
		} finally {
			app.unmount();
		}
	});
});
