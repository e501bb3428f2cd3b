/** `platform-tui keys show`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['keys', 'show'],
	summary: 'Show the API key (masked), its source and rotation state',
	load: async () => import('./show.js'),
});
