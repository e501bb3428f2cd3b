/** `platform-tui trigger`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['trigger'],
	summary: 'Send a signed test event to a receiver',
	load: async () => import('./trigger.js'),
});
