import {Text, useStdout} from 'ink';
import {colorEnabled} from '../../terminal.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {throughputLine} from './throughput.js';
import type {UploadViewState} from './view-state.js';

/** The throughput under the totals: a sparkline of the bytes per second with colour, figures without. */
export function ThroughputLine({state, now, pictures}: {state: UploadViewState; now: number; pictures?: boolean}) {
	const {stdout} = useStdout();
	const columns = useTerminalSize().columns ?? 80;
	return <Text color='cyan' wrap='truncate'>{throughputLine(state, now, Math.max(1, columns - 1), pictures ?? colorEnabled(stdout, process.env))}</Text>;
}
