/** `platform-tui chat`: the words that name it and its summary. Its module loads only when it runs. */
import {declareCommand} from '../cli/declaration.js';

export default declareCommand({
	words: ['chat'],
	summary: 'Ask follow-up questions in an existing chat',
	load: async () => import('./chat.js'),
});
