import type {CommandContext} from '../../context.js';
import {renderApp, waitForApp} from '../render.js';
import {ChatApp, type Ask} from './app.js';

/**
 * Runs the chat prompt until the user ends it. Returns the exit code: 0 ended with an empty line
 * or Ctrl+D, 130 Ctrl+C at the prompt (or the command's signal, 143 on SIGTERM).
 */
export async function runChatSession(context: CommandContext, options: {chatId: string; ask: Ask; describe: (error: unknown) => string; banner?: string}): Promise<number> {
	let code: number | undefined;
	const instance = renderApp(context, (
		<ChatApp
			chatId={options.chatId}
			ask={options.ask}
			describe={options.describe}
			{...(options.banner === undefined ? {} : {banner: options.banner})}
			onEnd={ended => {
				code = ended;
			}}
		/>
	));
	await waitForApp(instance, context.signal);
	if (code === undefined) {
		return context.signal.reason === 'SIGTERM' ? 143 : 130;
	}

	return code;
}
