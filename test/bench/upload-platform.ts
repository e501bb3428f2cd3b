/**
 * The upload benchmark's local platform, run in a child process (`startPlatformProcess`) so that
 * neither its CPU nor its memory is counted against the uploader: prints its settings as one JSON
 * line and runs until stdin closes. The argument is the latency added to every request, in ms.
 */
async function servePlatform(latencyMs: number): Promise<void> {
	const {startLocalPlatform} = await import('../../source/local-platform/index.js');
	const platform = await startLocalPlatform({host: '127.0.0.1', port: 0, latencyMs, limits: {maxContents: 5000}});
	process.stdout.write(`${JSON.stringify(platform.settings())}\n`);
	await new Promise<void>(resolve => {
		process.stdin.on('end', resolve).on('close', resolve).resume();
		process.on('SIGTERM', resolve);
	});
	await platform.close();
	process.exit(0);
}

await servePlatform(Number(process.argv[2] ?? 0));
