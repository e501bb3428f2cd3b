/** `platform-tui keys rotate`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['keys', 'rotate'],
	summary: 'Rotate the API key; the old key keeps working until it expires',
	load: async () => import('./rotate.js'),
});
