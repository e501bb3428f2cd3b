/** `platform-tui events show`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['events', 'show'],
	summary: 'Show one journaled event: headers, body and steps',
	load: async () => import('./show.js'),
});
