/** `platform-tui config get`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['config', 'get'],
	summary: 'Print one setting',
	load: async () => import('./get.js'),
});
