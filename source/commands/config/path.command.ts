/** `platform-tui config path`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['config', 'path'],
	summary: 'Print where the settings file is',
	load: async () => import('./path.js'),
});
