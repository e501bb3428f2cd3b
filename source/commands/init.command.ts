/** `platform-tui init`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['init'],
	summary: 'Set up the settings interactively and check them against the platform',
	load: async () => import('./init.js'),
});
