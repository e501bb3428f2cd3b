/** `platform-tui events list`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['events', 'list'],
	summary: 'List the events serve has journaled',
	load: async () => import('./list.js'),
});
