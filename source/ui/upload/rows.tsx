/** The pieces of the upload screen: one-line rows for the live area and the blocks printed once. */
import {Box, Text} from 'ink';
import Spinner from 'ink-spinner';
import type {ReactNode} from 'react';
import {fitColumns} from '../../format/ids.js';
import {displayWidth, padEndToWidth} from '../../format/width.js';
import type {FileFailure} from '../../workflow/errors.js';
import {WrappedText} from '../components/wrapped-text.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {wrapParagraphs} from '../wrap.js';
import {formatBytes, formatElapsed, progressBar, retryText, skippedLine, truncate} from './format.js';
import type {FileRow, StaticItem} from './state.js';

/** Columns of a panel's content: the terminal less its last column, the bar, the padding and the title column. */
const panelChrome = 1 + 1 + 1 + 10;

/** Text of a panel, wrapped at the panel's width (see wrap.ts) less `reserved` columns beside it. */
function PanelText({text, reserved = 0}: {text: string; reserved?: number}) {
	const {columns} = useTerminalSize();
	return <Text>{wrapParagraphs(text, (columns ?? 80) - panelChrome - reserved)}</Text>;
}

/** A labelled section: a coloured bar on the left, the title in a column, the content beside it. */
export function Panel({title, color, children}: {title: string; color?: string; children: ReactNode}) {
	// <Static> lays its items out at their content's width, so a long reply ran past the terminal
	// and the terminal wrapped it under the bar. The panel takes the terminal's width (less the last
	// column, which a full-width line would wrap at) and its column what is left beside the title.
	const {columns} = useTerminalSize();
	return (
		<Box width={(columns ?? 80) - 1} borderStyle='bold' borderTop={false} borderBottom={false} borderRight={false} borderColor={color ?? 'gray'} paddingLeft={1}>
			<Box width={10} flexShrink={0}>
				<Text bold color={color}>{title}</Text>
			</Box>
			<Box flexDirection='column' flexGrow={1} flexBasis={0}>
				{children}
			</Box>
		</Box>
	);
}

const phaseText: Record<FileRow['phase'], string> = {
	waiting: 'waiting',
	upserting: 'creating content',
	uploading: 'uploading',
	finalizing: 'finalizing',
	ingesting: 'ingesting',
	finished: 'FINISHED',
	failed: 'failed',
};

/**
 * How a row that ends with a content id fits `columns` (ids.ts's fitColumns, the one rule that
 * keeps ids whole): the id is never cut. The name column shrinks first, down to 8 (or the name's
 * own width), then the size is left out, then the id. `fixed` is what the icon and the state take
 * with their gaps. Widths are display columns.
 */
export function fitFileRow(columns: number, nameWidth: number, fixed: number, id: string | undefined): {nameWidth: number; size: boolean; id: string | undefined} {
	if (id === undefined) {
		return {nameWidth, size: true, id};
	}

	// The name, the size with the space before it, the id with the two before it.
	const fitted = fitColumns([nameWidth, 1 + 10, 2 + displayWidth(id)], columns - fixed, {gap: 0, whole: [1, 2], minimum: {0: 8}, dropOrder: [1, 2]});
	const width = fitted.widths[fitted.columns.indexOf(0)] ?? nameWidth;
	return {nameWidth: width, size: fitted.columns.includes(1), id: fitted.columns.includes(2) ? id : undefined};
}

/** Columns of a row besides its name, size and id: the icon and the state, with their gaps. */
const rowFixed = (state: string) => 2 + 2 + displayWidth(state);

/** A file's name cut to `width` display columns (runs of spaces kept) and padded to it. */
const nameCell = (name: string, width: number) => padEndToWidth(truncate(name, width), width);

/** One line per file; `width` is the name column. Never wraps. */
export function FileLine({row, width, live, now}: {row: FileRow; width: number; live: boolean; now: number}) {
	const {columns} = useTerminalSize();
	const size = formatBytes(row.size).padStart(10);
	if (row.phase === 'finished' || (row.phase === 'failed' && row.contentId !== undefined)) {
		const finished = row.phase === 'finished';
		const state = row.state ?? (finished ? 'FINISHED' : 'upload failed');
		const fit = fitFileRow(columns ?? 80, width, rowFixed(state), row.contentId);
		const name = nameCell(row.name, fit.nameWidth);
		const color = finished ? 'green' : 'red';
		return <Text wrap='truncate'><Text color={color}>{finished ? '✔' : '✖'}</Text> {name}{fit.size ? ` ${size}` : ''}  <Text color={color}>{state}</Text>{fit.id === undefined ? null : <Text dimColor>  {fit.id}</Text>}</Text>;
	}

	const name = nameCell(row.name, width);
	if (row.phase === 'failed') {
		return <Text wrap='truncate'><Text color='red'>✖</Text> {name} {size}  <Text color='red'>{row.state ?? 'upload failed'}</Text><Text dimColor>  {row.error ?? ''}</Text></Text>;
	}

	const icon = live && row.phase !== 'waiting' ? <Text color='cyan'><Spinner type='dots'/></Text> : <Text dimColor>·</Text>;
	const retry = row.retry ? <Text color='yellow'>  {retryText(row.retry, now)}</Text> : null;
	if (row.phase === 'uploading') {
		return <Text wrap='truncate'>{icon} {name} {size}  <Text color='cyan'>{progressBar(row.sentBytes, row.size)}</Text>{retry}</Text>;
	}

	return <Text wrap='truncate'>{icon} {name} {size}  <Text dimColor>{row.phase === 'ingesting' ? (row.state ?? 'QUEUED') : phaseText[row.phase]}</Text>{retry}</Text>;
}

function History({messages}: {messages: Array<{role: string; text: string}>}) {
	return (
		<Panel title='History'>
			{messages.length === 0 && <Text dimColor>(no messages)</Text>}
			{messages.map((message, index) => (
				<Box key={index}>
					<Box width={10} flexShrink={0}>
						<Text bold color={message.role === 'USER' ? 'blue' : 'magenta'}>{message.role}</Text>
					</Box>
					<PanelText text={message.text} reserved={10}/>
				</Box>
			))}
		</Panel>
	);
}

/** A block printed once above the live area (Ink's <Static>): it wraps at the terminal width and stays in the scrollback. */
export function StaticBlock({item, width}: {item: StaticItem; width: number}) {
	switch (item.kind) {
		case 'file': {
			return <FileLine row={item.row} width={width} live={false} now={0}/>;
		}

		case 'banner': {
			return <Text dimColor>{item.text}</Text>;
		}

		case 'skipped': {
			return <Panel title='Skipped' color='yellow'><WrappedText>{skippedLine(item.skipped).replace(/^Skipped /, '')}</WrappedText></Panel>;
		}

		case 'space': {
			const {space} = item;
			return (
				<Panel title='Space'>
					<WrappedText>
						<Text bold>{space.name}</Text>
						<Text dimColor> · model </Text>{space.languageModel}
						<Text dimColor> · chat upload </Text>{space.chatUpload}
					</WrappedText>
					<WrappedText><Text dimColor>modules </Text>{space.modules.length > 0 ? space.modules.join(', ') : '(none)'}</WrappedText>
				</Panel>
			);
		}

		case 'space-warning': {
			return <Panel title='Space' color='yellow'><WrappedText color='yellow'>⚠ {item.message}</WrappedText></Panel>;
		}

		case 'chat': {
			return (
				<Panel title='Chat'>
					<WrappedText><Text color='green'>✔ </Text><Text bold>{item.chatId}</Text><Text dimColor> · {item.title} · {formatElapsed(item.elapsedMs)} elapsed</Text></WrappedText>
				</Panel>
			);
		}

		case 'sync': {
			const shown = item.unchanged.slice(0, 5).join(', ');
			const more = item.unchanged.length > 5 ? `, … ${item.unchanged.length - 5} more` : '';
			return (
				<Panel title='Sync'>
					<WrappedText>{item.upload} new · {item.replace} replaced{item.awaiting > 0 ? ` · ${item.awaiting} still ingesting` : ''} · <Text color='green'>{item.unchanged.length} unchanged</Text>{item.deleting.length > 0 ? ` · ${item.deleting.length} to delete` : ''}</WrappedText>
					{item.unchanged.length > 0 && <WrappedText dimColor>unchanged, skipped ({formatBytes(item.unchangedBytes)}): {shown}{more}</WrappedText>}
					{item.deleting.length > 0 && <WrappedText dimColor>deleting, their file is gone: {item.deleting.slice(0, 5).join(', ')}{item.deleting.length > 5 ? `, … ${item.deleting.length - 5} more` : ''}</WrappedText>}
					{item.manifest !== undefined && <WrappedText dimColor>manifest {item.manifest}</WrappedText>}
				</Panel>
			);
		}

		case 'ingestion': {
			return (
				<Panel title='Ingestion' color={item.failed > 0 ? 'yellow' : undefined}>
					<WrappedText>{item.failed > 0 ? <Text color='yellow'>!</Text> : <Text color='green'>✔</Text>} <Text bold>{item.finished}/{item.total}</Text> finished{item.failed > 0 ? `, ${item.failed} failed` : ''}<Text dimColor> · {formatElapsed(item.elapsedMs)}</Text></WrappedText>
					{item.folded > 0 && <WrappedText dimColor>{item.folded} more FINISHED {item.folded === 1 ? 'file' : 'files'} not listed one by one</WrappedText>}
				</Panel>
			);
		}

		case 'reply': {
			return (
				<Panel title='Reply' color='green'>
					{item.text === '' ? <Text dimColor>(empty reply)</Text> : <PanelText text={item.text}/>}
					<Text dimColor>answered in {formatElapsed(item.elapsedMs)}</Text>
				</Panel>
			);
		}

		case 'history': {
			return <History messages={item.messages}/>;
		}
	}
}

/** The error box: the label and the sentence in one text, so it wraps as one paragraph. */
export function ErrorBox({message}: {message: string}) {
	return (
		<Box borderStyle='round' borderColor='red' paddingX={1}>
			<Text color='red'><Text bold>Error:</Text> {message}</Text>
		</Box>
	);
}

/** Files left out under --keep-going, one line each. */
export function FailedList({failed}: {failed: FileFailure[]}) {
	return (
		<Panel title='Left out' color='yellow'>
			{failed.map(failure => <WrappedText key={failure.name}>✖ {failure.name} <Text dimColor>({failure.stage}: {failure.reason})</Text></WrappedText>)}
		</Panel>
	);
}
