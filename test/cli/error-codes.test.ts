import {describe, expect, it} from 'vitest';
import {allCodes, documentedCodes, scanSource} from '../support/error-codes.js';

describe('error codes', () => {
	it('every UserError and UsageError names its code as a literal, so the codes can be collected', () => {
		expect(scanSource().withoutLiteral).toEqual([]);
	});

	it('are kebab-case', () => {
		const bad = [...allCodes()].filter(code => !/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(code));
		expect(bad).toEqual([]);
	});

	it('every code the program can raise is in the table of docs/errors.md, and the table names no other', () => {
		const raised = allCodes();
		const documented = documentedCodes();
		expect([...raised].filter(code => !documented.has(code)).sort()).toEqual([]);
		expect([...documented].filter(code => !raised.has(code)).sort()).toEqual([]);
	});

});
