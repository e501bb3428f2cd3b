/** `platform-tui events replay`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../../cli/declaration.js';

export default declareCommand({
	words: ['events', 'replay'],
	summary: 'Process a journaled event again',
	load: async () => import('./replay.js'),
});
