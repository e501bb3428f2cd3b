// ESLint flat config: typescript-eslint's strict type-checked rules and the React hooks rules.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ignores: ['dist/**', 'node_modules/**', 'coverage/**']},
	js.configs.recommended,
	...tseslint.configs.strictTypeChecked,
	{
		languageOptions: {
			parserOptions: {
				// One program for every file: test/tsconfig.json holds source/ and test/. (A project
				// service would build one for source/ and another for test/ that holds source/ again.)
				project: ['./test/tsconfig.json'],
				tsconfigRootDir: import.meta.dirname,
			},
		},
		plugins: {'react-hooks': reactHooks},
		rules: {
			...reactHooks.configs.recommended.rules,
			// Template literals with numbers and booleans are how the CLI words its sentences.
			'@typescript-eslint/restrict-template-expressions': ['error', {allowNumber: true, allowBoolean: true}],
			'no-await-in-loop': 'off',
		},
	},
	{
		// The house's size rules: a file under 300 lines, a function under 80 (blank lines and
		// comments not counted in a function), each doing one job.
		files: ['source/**/*.ts', 'source/**/*.tsx'],
		rules: {
			'max-lines': ['error', {max: 300}],
			'max-lines-per-function': ['error', {max: 80, skipBlankLines: true, skipComments: true}],
		},
	},
	{
		files: ['**/*.js'],
		...tseslint.configs.disableTypeChecked,
	},
);
