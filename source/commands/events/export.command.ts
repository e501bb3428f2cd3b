/** `platform-tui events export`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['events', 'export'],
	summary: 'Print a journaled event\'s body (or write it to a file) as a fixture',
	load: async () => import('./export.js'),
});
