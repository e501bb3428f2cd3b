import {Text, useInput} from 'ink';
import {useRef, useState} from 'react';

export type TextInputProps = {
	/** Shown dimmed while nothing is typed. */
	placeholder?: string;
	/** Show each typed character as • (for secrets). */
	mask?: boolean;
	/** Called with the typed text on Enter. */
	onSubmit: (value: string) => void;
	/** Called on Esc. */
	onCancel?: () => void;
	isActive?: boolean;
};

/** A one-line text field: typing, paste, Backspace, Enter to submit, Esc to cancel. */
export function TextInput({placeholder, mask = false, onSubmit, onCancel, isActive = true}: TextInputProps) {
	const [value, setValueState] = useState('');
	// Keystrokes can arrive faster than renders; the ref always holds what was typed so far.
	const typed = useRef('');
	const setValue = (update: (current: string) => string) => {
		typed.current = update(typed.current);
		setValueState(typed.current);
	};

	useInput((input, key) => {
		if (key.return) {
			const submitted = typed.current;
			setValue(() => '');
			onSubmit(submitted);
			return;
		}

		if (key.escape) {
			onCancel?.();
			return;
		}

		if (key.backspace || key.delete) {
			setValue(current => current.slice(0, -1));
			return;
		}

		if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) {
			return;
		}

		// Pasted text arrives in one chunk, maybe ending in a newline: keep the printable
		// characters, and submit at the first line break.
		const lineBreak = input.search(/[\r\n]/);
		const line = lineBreak === -1 ? input : input.slice(0, lineBreak);
		// eslint-disable-next-line no-control-regex
		const printable = line.replace(/[\u0000-\u001F\u007F]/g, '');
		if (printable) {
			setValue(current => current + printable);
		}

		if (lineBreak !== -1) {
			const submitted = typed.current;
			setValue(() => '');
			onSubmit(submitted);
		}
	}, {isActive});

	if (value === '') {
		return <Text dimColor>{placeholder ?? ''}<Text inverse> </Text></Text>;
	}

	return <Text>{mask ? '•'.repeat(value.length) : value}<Text inverse> </Text></Text>;
}
