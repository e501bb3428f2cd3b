import {readFileSync} from 'node:fs';

function readVersion(): string {
	try {
		const raw = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
		const parsed = JSON.parse(raw) as {version?: unknown};
		return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
	} catch {
		return '0.0.0';
	}
}

export const version = readVersion();
export const userAgent = `platform-tui/${version} (node ${process.version})`;
