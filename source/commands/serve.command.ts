/** `platform-tui serve`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['serve'],
	summary: 'Run the webhook receiver with a live event log',
	load: async () => import('./serve.js'),
});
