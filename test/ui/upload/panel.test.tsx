import {Static, Text} from 'ink';
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {StaticBlock} from '../../../source/ui/upload/rows.js';
import {waitFor} from '../../support/wait.js';

// eslint-disable-next-line no-control-regex -- the ANSI escape sequences of Ink's colours
const stripAnsi = (text: string) => text.replaceAll(/\u001B\[[\d;]*m/g, '');

const reply = 'The harbour lighthouse keeper writes in the log every evening at sunset, noting the wind, the sea state and every ship that passed the point during the day, and signs each page.';

describe('the upload panel', () => {
	it('printed once, wraps a long reply within a 60-column terminal, beside its title', async () => {
		// ink-testing-library's stdout always says 100 columns: make its class say 60 for this render.
		const probe = render(<Text/>);
		const stdoutClass = Object.getPrototypeOf(probe.stdout) as object;
		probe.unmount();
		const columns = Object.getOwnPropertyDescriptor(stdoutClass, 'columns');
		Object.defineProperty(stdoutClass, 'columns', {configurable: true, get: () => 60});
		try {
			// Inside <Static>, as the reply is printed: Static lays its items out at their content's width.
			const instance = render(<Static items={[reply]}>{text => <StaticBlock key={text} item={{kind: 'reply', key: 'reply', text, elapsedMs: 1200}} width={20}/>}</Static>);
			await waitFor(() => (instance.lastFrame() ?? '') !== '');
			const lines = stripAnsi(instance.lastFrame() ?? '').split('\n').filter(line => line !== '');
			instance.unmount();
			expect(Math.max(...lines.map(line => line.length))).toBeLessThanOrEqual(59);
			// Every line starts with the bar; the text column starts after the 10-column title column.
			for (const line of lines) {
				expect(line.startsWith('┃')).toBe(true);
			}

			expect(lines[0]).toMatch(/^┃ Reply {5}The harbour/);
			// No wrapped row starts with a stray space: each begins exactly in the text column.
			expect(lines.slice(1).every(line => /^┃ {11}\S/.test(line))).toBe(true);
			expect(lines.slice(0, -1).map(line => line.slice(12)).join(' ')).toBe(reply);
			expect(lines.at(-1)).toMatch(/answered in/);
		} finally {
			if (columns) {
				Object.defineProperty(stdoutClass, 'columns', columns);
			}
		}
	});
});
