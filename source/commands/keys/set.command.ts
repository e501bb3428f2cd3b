/** `platform-tui keys set`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['keys', 'set'],
	summary: 'Store the API key (masked prompt, or stdin)',
	load: async () => import('./set.js'),
});
