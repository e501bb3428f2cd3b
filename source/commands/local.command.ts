/** `platform-tui local`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['local'],
	summary: 'Run the local platform, a stand-in for the real service',
	load: async () => import('./local.js'),
});
