/** `platform-tui upload`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['upload'],
	summary: 'Upload a folder into a new space chat, wait for ingestion and ask a question',
	load: async () => import('./upload.js'),
});
