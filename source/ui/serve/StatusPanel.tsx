import {Box, Text} from 'ink';
import Spinner from 'ink-spinner';
import {Fragment} from 'react';
import {separator, type StatusItem, type Tone} from './counter-items.js';
import {statusLines, statusSections, type StatusInput, type StatusLine} from './status-lines.js';

export type {KeyStatus} from './status-lines.js';

export type StatusPanelProps = StatusInput & {
	/** Quitting without waiting: no spinner may stay on the screen. */
	quitting: boolean;
	width: number;
	/** Lines inside the box at most (the window's height allows). */
	maxLines?: number;
};

/** Columns inside the box: its border and padding take 4. */
export function statusInnerWidth(width: number): number {
	return Math.max(20, width - 4);
}

/**
 * The box's lines for `props` at `width` (the layout counts them; the panel draws them). Past
 * `maxLines` (a window too short for them, or open details), the first lines and the last
 * section (the keys, or the stop under way) are kept, and a line between them says how many more
 * there are.
 */
export function statusPanelContent(props: StatusInput, width: number, maxLines = Number.POSITIVE_INFINITY): StatusLine[] {
	const lines = statusLines(statusSections(props), statusInnerWidth(width));
	if (lines.length <= maxLines) {
		return lines;
	}

	const room = Math.max(1, Math.floor(maxLines));
	const lastKey = lines.at(-1)?.key;
	const lastSection = lines.length - lines.findIndex(line => line.key === lastKey);
	const tail = Math.min(lastSection, Math.max(0, room - 2));
	const head = Math.max(0, room - 1 - tail);
	return [...lines.slice(0, head), {key: 'more', tone: 'dim', items: [{text: `… ${lines.length - head - tail} more lines (the window is too short)`}]}, ...lines.slice(lines.length - tail)];
}

/** Lines the panel takes (its border included), for the layout. */
export function statusPanelLines(props: StatusInput, width: number, maxLines?: number): number {
	return 2 + statusPanelContent(props, width, maxLines).length;
}

function toneProps(tone: Tone | undefined): {bold?: boolean; color?: string; dimColor?: boolean} {
	switch (tone) {
		case 'bold': {
			return {bold: true};
		}

		case 'dim': {
			return {dimColor: true};
		}

		case 'green':
		case 'yellow':
		case 'red':
		case 'cyan': {
			return {color: tone};
		}

		default: {
			return {};
		}
	}
}

function Item({item}: {item: StatusItem}) {
	return item.tone ? <Text {...toneProps(item.tone)}>{item.text}</Text> : <>{item.text}</>;
}

/** The status box under the live rows: address, secrets, key, counters, cluster queue, keys. */
export function StatusPanel(props: StatusPanelProps) {
	const {draining, stopped} = props;
	const lines = statusPanelContent(props, props.width, props.maxLines);
	return (
		<Box flexDirection="column" width={props.width} borderStyle="round" borderColor={stopped ? 'gray' : (draining ? 'yellow' : 'cyan')} paddingX={1}>
			{lines.map((line, index) => (
				<Text key={`${line.key}-${String(index)}`} wrap="truncate-end" {...toneProps(line.tone)}>
					{line.spinner && !props.quitting ? <><Spinner type="dots" />{' '}</> : null}
					{line.items.map((item, itemIndex) => (
						<Fragment key={String(itemIndex)}>
							{itemIndex > 0 ? separator : null}
							<Item item={item} />
						</Fragment>
					))}
				</Text>
			))}
		</Box>
	);
}
