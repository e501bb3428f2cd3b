/** Screen tests with ink-testing-library: its frames without colours, and a terminal of another width. */
import {Text} from 'ink';
import {render} from 'ink-testing-library';

// eslint-disable-next-line no-control-regex -- the ANSI escape sequences of Ink's colours
export const stripAnsi = (text: string) => text.replaceAll(/\u001B\[[\d;]*m/g, '');

/**
 * ink-testing-library's stdout always says 100 columns: its class says `columns` until the
 * returned restore runs (push it to the test's cleanups).
 */
export function terminalOf(columns: number): () => void {
	const probe = render(<Text/>);
	const stdoutClass = Object.getPrototypeOf(probe.stdout) as object;
	probe.unmount();
	const original = Object.getOwnPropertyDescriptor(stdoutClass, 'columns');
	Object.defineProperty(stdoutClass, 'columns', {configurable: true, get: () => columns});
	return () => {
		if (original) {
			Object.defineProperty(stdoutClass, 'columns', original);
		}
	};
}
