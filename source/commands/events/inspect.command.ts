/** `platform-tui events inspect`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['events', 'inspect'],
	summary: 'Browse, search and replay the journaled events in a full-screen inspector',
	load: async () => import('./inspect.js'),
});
