/** `platform-tui config list`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['config', 'list'],
	summary: 'List every setting, its value (secrets masked) and where it comes from',
	load: async () => import('./list.js'),
});
