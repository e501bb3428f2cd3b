/** `platform-tui completion`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from './declaration.js';

export default declareCommand({
	words: ['completion'],
	summary: 'Print a shell completion script (bash, zsh or fish)',
	load: async () => import('./completion.js'),
});
