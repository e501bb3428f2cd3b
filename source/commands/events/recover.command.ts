/** `platform-tui events recover`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['events', 'recover'],
	summary: 'Copy every readable event of a damaged journal into a fresh one',
	load: async () => import('./recover.js'),
});
