/** `platform-tui version`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['version'],
	summary: 'Print the version of platform-tui',
	load: async () => import('./version.js'),
});
