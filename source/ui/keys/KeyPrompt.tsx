import {Box, Text, useApp, useInput} from 'ink';
import {useRef, useState} from 'react';
import {keyProblem, maxKeyLength} from '../../keys/current.js';

export type KeyPromptResult = {kind: 'submitted'; key: string} | {kind: 'cancelled'} | {kind: 'interrupted'};

type Props = {
	/** What the key is for, shown above the input. */
	label?: string;
	onDone: (result: KeyPromptResult) => void;
};

/** Masks the typed key: one bullet per character, capped so a long key does not wrap. */
export function bullets(length: number): string {
	return length > 48 ? `${'•'.repeat(48)}… (${length})` : '•'.repeat(length);
}

/**
 * A masked prompt for a secret: typed or pasted characters show as •, Backspace deletes, Enter
 * submits, Esc cancels and Ctrl+C interrupts. The value never reaches the screen.
 */
export function KeyPrompt({label = 'API key', onDone}: Props) {
	const {exit} = useApp();
	const value = useRef('');
	const [length, setLength] = useState(0);
	const [problem, setProblem] = useState<string | undefined>();
	const [finished, setFinished] = useState<'submitted' | 'cancelled' | undefined>();

	const finish = (result: KeyPromptResult) => {
		setFinished(result.kind === 'submitted' ? 'submitted' : 'cancelled');
		onDone(result);
		exit();
	};

	useInput((input, key) => {
		if (finished) {
			return;
		}

		if (key.ctrl && input === 'c') {
			finish({kind: 'interrupted'});
			return;
		}

		if (key.escape) {
			finish({kind: 'cancelled'});
			return;
		}

		if (key.return) {
			const typed = value.current.trim();
			const found = keyProblem(typed);
			if (found) {
				setProblem(typed === '' ? 'A key is required: type or paste it, or press Esc to cancel.' : `Not stored: ${found}. Fix it, or press Esc to cancel.`);
				return;
			}

			finish({kind: 'submitted', key: typed});
			return;
		}

		if (key.backspace || key.delete) {
			value.current = value.current.slice(0, -1);
		} else if (key.ctrl && input === 'u') {
			value.current = '';
		} else if (!key.ctrl && !key.meta && input) {
			// Pasted text arrives in one piece; keep printable characters only.
			// eslint-disable-next-line no-control-regex
			const printable = input.replace(/[\u0000-\u001F\u007F]/g, '');
			value.current = (value.current + printable).slice(0, maxKeyLength + 1);
		} else {
			return;
		}

		setProblem(undefined);
		setLength(value.current.length);
	});

	if (finished) {
		return (
			<Text>
				{label}: {finished === 'submitted' ? bullets(length) : <Text dimColor>(cancelled)</Text>}
			</Text>
		);
	}

	return (
		<Box flexDirection='column'>
			<Text>
				<Text bold>{label}:</Text> {bullets(length)}<Text inverse> </Text>
			</Text>
			{problem
				? <Text color='red'>{problem}</Text>
				: <Text dimColor>Type or paste the key (it stays hidden), Enter to store, Esc to cancel.</Text>}
		</Box>
	);
}
