import {useStdout} from 'ink';
import {useEffect, useState} from 'react';

/** The terminal's columns and rows, following resizes (undefined rows: not a terminal). */
export function useTerminalSize(): {columns: number | undefined; rows: number | undefined} {
	const {stdout} = useStdout();
	// Typed as numbers, but undefined when the stream is not a terminal (tests, pipes).
	const [size, setSize] = useState<{columns: number | undefined; rows: number | undefined}>(() => ({columns: stdout.columns, rows: stdout.rows}));
	useEffect(() => {
		const onResize = () => {
			setSize({columns: stdout.columns, rows: stdout.rows});
		};

		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}
