/**
 * Plain text from the formats the local platform reads as text: HTML (tags and scripts dropped,
 * entities decoded), CSV (each row's cells labelled with their column) and JSON (each leaf
 * labelled with its path). extract.ts picks the one a file's type names.
 */
import {foldWhiteSpace} from '../../format/text.js';

const namedEntities: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', nbsp: ' '};

/** The readable text of an HTML page, one line per block, entities decoded. */
export function htmlToText(html: string): string {
	return html
		.replace(/<!--[\s\S]*?-->/g, ' ')
		.replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
		.replace(/<(br|\/p|\/div|\/li|\/tr|\/h[1-6]|\/title|\/section|\/article|\/table|\/ul|\/ol|hr)\b[^>]*>/gi, '\n')
		.replace(/<[^>]*>/g, ' ')
		.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
			if (name.startsWith('#x') || name.startsWith('#X')) {
				return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
			}

			if (name.startsWith('#')) {
				return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
			}

			return namedEntities[name.toLowerCase()] ?? entity;
		})
		.split('\n')
		.map(line => foldWhiteSpace(line))
		.filter(line => line.length > 0)
		.join('\n');
}

/** Parses CSV (RFC 4180 quoting) into rows of cells. */
export function parseCsv(text: string, delimiter = ','): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	for (let index = 0; index < text.length; index++) {
		const char = text.charAt(index);
		if (quoted) {
			if (char === '"') {
				if (text[index + 1] === '"') {
					cell += '"';
					index++;
				} else {
					quoted = false;
				}
			} else {
				cell += char;
			}
		} else if (char === '"' && cell === '') {
			quoted = true;
		} else if (char === delimiter) {
			row.push(cell);
			cell = '';
		} else if (char === '\n' || char === '\r') {
			if (char === '\r' && text[index + 1] === '\n') {
				index++;
			}

			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
		} else {
			cell += char;
		}
	}

	if (cell !== '' || row.length > 0) {
		row.push(cell);
		rows.push(row);
	}

	return rows.filter(cells => cells.some(value => value.trim() !== ''));
}

/** One line per data row, each cell labelled with its column header: `name: Ada; role: engineer`. */
export function csvToText(text: string, delimiter = ','): string {
	const [header, ...rows] = parseCsv(text, delimiter);
	if (header === undefined) {
		return '';
	}

	if (rows.length === 0) {
		return header.join(', ');
	}

	return rows
		.map(cells => cells.map((value, index) => `${header[index]?.trim() || `column ${index + 1}`}: ${value.trim()}`).join('; '))
		.join('\n');
}

/** One line per leaf value, labelled with its path: `owner.name: Ada`. */
export function jsonToText(value: unknown): string {
	const lines: string[] = [];
	const walk = (node: unknown, path: string): void => {
		if (Array.isArray(node)) {
			for (const [index, item] of node.entries()) {
				walk(item, `${path}[${index}]`);
			}
		} else if (node !== null && typeof node === 'object') {
			for (const [key, item] of Object.entries(node)) {
				walk(item, path === '' ? key : `${path}.${key}`);
			}
		} else {
			lines.push(path === '' ? String(node) : `${path}: ${String(node)}`);
		}
	};

	walk(value, '');
	return lines.join('\n');
}
