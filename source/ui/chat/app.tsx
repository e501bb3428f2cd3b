/**
 * The chat prompt: each question is sent in the chat and its reply streams into the live area;
 * every exchange is then printed once, as ordinary output, so the scrollback holds the whole
 * conversation. Enter sends; an empty line or Ctrl+D ends (exit 0); Ctrl+C during a reply stops
 * waiting for it, Ctrl+C at the prompt leaves (exit 130).
 */
import {Box, Static, Text} from 'ink';
import Spinner from 'ink-spinner';
import {formatElapsed} from '../../format/duration.js';
import {TextInput} from '../components/text-input.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {wrapParagraphs} from '../wrap.js';
import {WrappedText} from '../components/wrapped-text.js';
import {stoppedNote, type ChatItem, type ChatViewState} from './state.js';
import {useChatSession, type ChatAppProps} from './use-chat-session.js';

export type {Ask, ChatAppProps} from './use-chat-session.js';

function Item({item, width}: {item: ChatItem; width: number}) {
	switch (item.kind) {
		case 'banner': {
			return <Text dimColor>{item.text}</Text>;
		}

		case 'question': {
			return <Text><Text bold color='cyan'>› </Text>{wrapParagraphs(item.text, width - 2)}</Text>;
		}

		case 'reply': {
			return (
				<Box flexDirection='column' marginBottom={1}>
					<Text>{wrapParagraphs(item.text === '' ? '(empty reply)' : item.text, width)}</Text>
					<Text dimColor>{formatElapsed(item.elapsedMs)}</Text>
				</Box>
			);
		}

		case 'stopped': {
			return (
				<Box flexDirection='column' marginBottom={1}>
					{item.text !== '' && <Text>{wrapParagraphs(item.text, width)}</Text>}
					<WrappedText color='yellow'>{stoppedNote(item.chatId)}</WrappedText>
				</Box>
			);
		}

		case 'error': {
			return <Box marginBottom={1}><Text color='red'>{wrapParagraphs(`Error: ${item.message}`, width)}</Text></Box>;
		}
	}
}

/** The reply so far, cut to its last `rows` wrapped rows so the live area stays shorter than the terminal. */
function Streaming({pending, now, width, rows}: {pending: NonNullable<ChatViewState['pending']>; now: number; width: number; rows: number}) {
	const wrapped = pending.text === '' ? [] : wrapParagraphs(pending.text, width).split('\n');
	const shown = wrapped.slice(-Math.max(1, rows));
	return (
		<Box flexDirection='column'>
			{shown.length > 0 && <Text>{shown.join('\n')}</Text>}
			<Text wrap='truncate'><Text color='cyan'><Spinner type='dots'/></Text> <Text dimColor>{pending.text === '' ? 'waiting for the assistant' : 'streaming'} · {formatElapsed(now - pending.sentAt)} · Ctrl+C stops waiting</Text></Text>
		</Box>
	);
}

export function ChatApp(props: ChatAppProps) {
	const {state, now, submit} = useChatSession(props);
	const {columns, rows} = useTerminalSize();
	const width = Math.max(20, (columns ?? 80) - 1);

	const live = state.exitCode === undefined;
	return (
		<>
			<Static items={state.items}>
				{item => <Item key={item.key} item={item} width={width}/>}
			</Static>
			{live && state.pending !== undefined && <Streaming pending={state.pending} now={now} width={width} rows={Math.min(12, (rows ?? 24) - 4)}/>}
			{live && state.pending === undefined && (
				<Box flexDirection='column'>
					<Box><Text bold color='cyan'>› </Text><TextInput placeholder='Ask a follow-up question' onSubmit={submit}/></Box>
					<Text dimColor wrap='truncate'>Enter sends · an empty line or Ctrl+D ends</Text>
				</Box>
			)}
		</>
	);
}
