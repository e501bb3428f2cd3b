/** Helpers of the local-platform suite only; the platform starter, client, waitFor, defined and the recording server are in test/support/. */
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {LocalPlatform} from '../../source/local-platform/index.js';

/** The four credential headers a raw fetch needs. */
export function authHeaders(platform: LocalPlatform, key = platform.apiKey): Record<string, string> {
	return {
		authorization: `Bearer ${key}`,
		'x-app-id': platform.appId,
		'x-user-id': platform.userId,
		'x-company-id': platform.companyId,
		'x-api-version': '2023-12-06',
		'content-type': 'application/json',
	};
}

export type TempDir = {dir: string; file(name: string, content: string | Uint8Array): Promise<string>; remove(): Promise<void>};

export async function tempDir(): Promise<TempDir> {
	const dir = await mkdtemp(path.join(tmpdir(), 'local-platform-test-'));
	return {
		dir,
		async file(name, content) {
			const filePath = path.join(dir, name);
			await writeFile(filePath, content);
			return filePath;
		},
		async remove() {
			await rm(dir, {recursive: true, force: true});
		},
	};
}

/**
 * A minimal valid PDF (one page per entry, Helvetica text), written byte-exact with a correct
 * cross-reference table so that pdf.js parses it without recovery.
 */
export function buildPdf(pages: readonly string[]): Buffer {
	const escape = (text: string): string => text.replace(/([\\()])/g, '\\$1');
	const objects: string[] = [];
	const pageCount = pages.length;
	// 1: catalog, 2: pages, 3: font, then for each page: page object, content stream.
	const kids = pages.map((_, index) => `${4 + (index * 2)} 0 R`).join(' ');
	objects.push('<< /Type /Catalog /Pages 2 0 R >>');
	objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`);
	objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
	for (const [index, text] of pages.entries()) {
		const stream = `BT /F1 12 Tf 72 720 Td (${escape(text)}) Tj ET`;
		objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + (index * 2)} 0 R >>`);
		objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
	}

	let out = '%PDF-1.4\n';
	const offsets: number[] = [];
	for (const [index, object] of objects.entries()) {
		offsets.push(Buffer.byteLength(out, 'latin1'));
		out += `${index + 1} 0 obj\n${object}\nendobj\n`;
	}

	const xrefOffset = Buffer.byteLength(out, 'latin1');
	out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) {
		out += `${String(offset).padStart(10, '0')} 00000 n \n`;
	}

	out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}
