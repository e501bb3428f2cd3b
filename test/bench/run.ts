/**
 * `npm run bench`: runs each benchmark part in its own process (so one part's memory never
 * colours another's figures) and prints their results one after another.
 */
import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const parts = [
	{name: 'upload', file: 'upload.ts'},
	{name: 'receiver', file: 'receiver.ts'},
	{name: 'scale', file: 'scale.ts'},
	{name: 'redis', file: 'redis-ack.ts'},
	{name: 'keys', file: 'keys.ts'},
	{name: 'inspector', file: 'inspector.ts'},
	{name: 'local', file: 'local.ts'},
	{name: 'listen', file: 'listen.ts'},
];

const requested = process.argv.slice(2);
let failed = 0;
for (const part of parts) {
	if (requested.length > 0 && !requested.includes(part.name)) {
		continue;
	}

	const path = fileURLToPath(new URL(part.file, import.meta.url));
	if (!existsSync(path)) {
		console.log(`\n== ${part.name}: no benchmark yet`);
		continue;
	}

	console.log(`\n== ${part.name}`);
	const result = spawnSync(process.execPath, ['--import', 'tsx', path], {stdio: 'inherit'});
	if (result.status !== 0) {
		failed++;
		console.log(`${part.name} benchmark failed (exit ${String(result.status)})`);
	}
}

process.exitCode = failed > 0 ? 1 : 0;
