import {open, readFile} from 'node:fs/promises';
import {extractText, getDocumentProxy} from 'unpdf';
import {errorMessage} from '../../format/value.js';
import {defaultLimits} from '../types.js';
import {csvToText, htmlToText, jsonToText} from './text-formats.js';

/** Text of one page; formats without pages produce a single page numbered 1. */
export type ExtractedPage = {page: number; text: string};

export type ExtractedKind = 'text' | 'markdown' | 'html' | 'csv' | 'json' | 'pdf' | 'binary';

export type Extraction = {
	kind: ExtractedKind;
	pages: ExtractedPage[];
	/** True when only the first `maxTextBytes` of a text file were read. */
	truncated: boolean;
};

export type ExtractionLimits = {
	/** Text-like files: only this many leading bytes are read and indexed. */
	maxTextBytes: number;
	/** PDFs are parsed whole, so larger ones end in FAILED_PARSING instead of filling memory. */
	maxPdfBytes: number;
};

export const defaultExtractionLimits: ExtractionLimits = {
	maxTextBytes: defaultLimits.maxTextBytes,
	maxPdfBytes: defaultLimits.maxPdfBytes,
};

/** The bytes could not be turned into text: the content ends in FAILED_PARSING. */
export class ParseError extends Error {
	override name = 'ParseError';
}

function baseMime(mimeType: string): string {
	return (mimeType.split(';')[0] ?? '').trim().toLowerCase();
}

function classify(mimeType: string): ExtractedKind | 'sniff' {
	const mime = baseMime(mimeType);
	if (mime === 'application/pdf' || mime === 'application/x-pdf') {
		return 'pdf';
	}

	if (mime === 'text/html' || mime === 'application/xhtml+xml') {
		return 'html';
	}

	if (mime === 'text/csv' || mime === 'application/csv' || mime === 'text/tab-separated-values') {
		return 'csv';
	}

	if (mime === 'application/json' || mime.endsWith('+json')) {
		return 'json';
	}

	if (mime === 'text/markdown' || mime === 'text/x-markdown') {
		return 'markdown';
	}

	if (
		mime.startsWith('text/')
		|| mime === 'application/xml'
		|| mime.endsWith('+xml')
		|| mime === 'application/javascript'
		|| mime === 'application/x-yaml'
		|| mime === 'application/yaml'
		|| mime === 'application/x-sh'
		|| mime === 'application/sql'
	) {
		return 'text';
	}

	return 'sniff';
}

async function readHead(filePath: string, maxBytes: number): Promise<{bytes: Buffer; truncated: boolean}> {
	const handle = await open(filePath, 'r');
	try {
		const {size} = await handle.stat();
		const length = Math.min(size, maxBytes);
		const bytes = Buffer.alloc(length);
		let offset = 0;
		while (offset < length) {
			 
			const {bytesRead} = await handle.read(bytes, offset, length - offset, offset);
			if (bytesRead === 0) {
				break;
			}

			offset += bytesRead;
		}

		return {bytes: bytes.subarray(0, offset), truncated: size > maxBytes};
	} finally {
		await handle.close();
	}
}

function decodeUtf8(bytes: Uint8Array): string {
	return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

/** True when the head of a file looks like UTF-8 text (no NUL bytes, valid UTF-8). */
function looksLikeText(bytes: Uint8Array): boolean {
	const head = bytes.subarray(0, 8192);
	if (head.includes(0)) {
		return false;
	}

	try {
		// A multi-byte character may be cut at the end of the head; `stream: true` tolerates that.
		new TextDecoder('utf-8', {fatal: true}).decode(head, {stream: head.length < bytes.length});
		return true;
	} catch {
		return false;
	}
}

async function extractPdf(filePath: string, byteSize: number, limits: ExtractionLimits): Promise<ExtractedPage[]> {
	if (byteSize > limits.maxPdfBytes) {
		throw new ParseError(`PDF of ${byteSize} bytes exceeds the local platform's parsing limit of ${limits.maxPdfBytes} bytes`);
	}

	const bytes = new Uint8Array(await readFile(filePath));
	try {
		const document = await getDocumentProxy(bytes, {verbosity: 0});
		try {
			const {text} = await extractText(document, {mergePages: false});
			return text.map((pageText, index) => ({page: index + 1, text: pageText}));
		} finally {
			await document.destroy();
		}
	} catch (error) {
		throw new ParseError(`Cannot parse PDF: ${errorMessage(error)}`);
	}
}

/**
 * Extracts the text of a stored blob according to its MIME type.
 *
 * - PDF: every page through unpdf (pdf.js); unparsable or too large → ParseError (FAILED_PARSING).
 * - HTML: tags, scripts and styles removed, entities decoded.
 * - CSV/TSV: one line per row with cells labelled by their column header.
 * - JSON: one line per leaf value labelled by its path; invalid JSON → ParseError.
 * - Markdown and other text types: the text as is.
 * - Anything else is sniffed: `%PDF-` is parsed as PDF, valid UTF-8 without NUL bytes as text,
 *   the rest is binary and yields no pages (the content finishes ingestion without chunks).
 */
export async function extractFile(
	filePath: string,
	mimeType: string,
	byteSize: number,
	limits: ExtractionLimits = defaultExtractionLimits,
): Promise<Extraction> {
	let kind = classify(mimeType);
	const head = await readHead(filePath, kind === 'pdf' ? 8 : limits.maxTextBytes);
	if (kind === 'sniff') {
		if (head.bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
			kind = 'pdf';
		} else if (head.bytes.length > 0 && looksLikeText(head.bytes)) {
			kind = 'text';
		} else {
			return {kind: 'binary', pages: [], truncated: false};
		}
	}

	if (kind === 'pdf') {
		return {kind, pages: await extractPdf(filePath, byteSize, limits), truncated: false};
	}

	const text = decodeUtf8(head.bytes);
	const single = (pageText: string): Extraction => ({kind, pages: [{page: 1, text: pageText}], truncated: head.truncated});
	switch (kind) {
		case 'html': {
			return single(htmlToText(text));
		}

		case 'csv': {
			return single(csvToText(text, baseMime(mimeType) === 'text/tab-separated-values' ? '\t' : ','));
		}

		case 'json': {
			if (head.truncated) {
				// A cut JSON document cannot be parsed; index its leading text instead.
				return single(text);
			}

			try {
				return single(jsonToText(JSON.parse(text)));
			} catch (error) {
				throw new ParseError(`Cannot parse JSON: ${errorMessage(error)}`);
			}
		}

		default: {
			return single(text);
		}
	}
}
