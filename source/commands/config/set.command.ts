/** `platform-tui config set`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['config', 'set'],
	summary: 'Store one setting',
	load: async () => import('./set.js'),
});
