import {Box, Text, useApp, useInput} from 'ink';
import Spinner from 'ink-spinner';
import {useLayoutEffect, useReducer, type Dispatch} from 'react';
import {mask, connectionSettingNames, settingSpecs, type SettingName} from '../../config/settings.js';
import type {Space} from '../../platform/types.js';
import {TextInput} from '../components/text-input.js';
import {WrappedText} from '../components/wrapped-text.js';
import {initialState, initReducer, initSummary, requiredSettings, type InitAction, type InitOutcome, type InitValues} from './state.js';
import {useInitWork} from './use-init-work.js';

export type {InitOutcome, InitValues} from './state.js';

export type InitFormProps = {
	/** Current values (from flags, env or the store), used when the user just presses Enter. */
	current: InitValues;
	check: (values: InitValues) => Promise<Space>;
	/** Stores the answers; resolves with the file's path. */
	save: (values: InitValues) => Promise<string> | string;
	/** The outcome, and the lines to print once the form is gone (initSummary). */
	onDone: (outcome: InitOutcome, summary: string[]) => void;
};

function shown(name: SettingName, values: InitValues): string {
	const value = values[name];
	if (!value) {
		return '(skipped)';
	}

	return settingSpecs[name].secret ? mask(value) : value;
}

/** The question for one setting: its description, variable and hint, one input, and what was wrong with the last answer. */
function Question({name, hint, problem, dispatch, current}: {name: SettingName; hint: string | undefined; problem: string | undefined; dispatch: Dispatch<InitAction>; current: InitValues}) {
	return (
		<Box flexDirection="column">
			<WrappedText>
				<Text color="cyan">? </Text>
				{settingSpecs[name].description} <Text dimColor>({settingSpecs[name].env})</Text>
				{hint ? <Text dimColor> [{hint}]</Text> : null}
				{requiredSettings.has(name) ? null : <Text dimColor> (optional)</Text>}
			</WrappedText>
			<Box>
				<Text>{'  '}</Text>
				{/* One input for every question (no remount), so keys typed right after a question shows are never lost. */}
				<TextInput
					mask={settingSpecs[name].secret}
					onSubmit={typed => {
						dispatch({type: 'submit', typed, current});
					}}
					onCancel={() => {
						dispatch({type: 'cancel'});
					}}
				/>
			</Box>
			{problem ? <Text color="red">{problem}</Text> : null}
		</Box>
	);
}

/** The `init` screen: one question per setting (secrets masked), one Get space check, then save. */
export function InitForm({current, check, save, onDone}: InitFormProps) {
	const {exit} = useApp();
	const [state, dispatch] = useReducer(initReducer, initialState);
	const {phase, values} = state;

	useInput((input, key) => {
		if (key.ctrl && input === 'c') {
			dispatch({type: 'cancel'});
			return;
		}

		dispatch({type: 'failedKey', input, escape: key.escape});
	});

	useInitWork(phase.kind, values, {check, save}, dispatch);

	const outcome = phase.kind === 'done' ? phase.outcome : undefined;
	// A layout effect: the outcome is reported in the same commit that shows the final frame (the
	// answers only); the command prints the summary as ordinary output once the form is unmounted.
	useLayoutEffect(() => {
		if (outcome) {
			onDone(outcome, initSummary(state));
			exit();
		}
	}, [outcome, state, onDone, exit]);

	const answered = connectionSettingNames.slice(0, phase.kind === 'asking' ? phase.index : state.asked);
	const asking = phase.kind === 'asking' ? connectionSettingNames[phase.index] : undefined;
	const hint = asking ? (settingSpecs[asking].secret ? (current[asking] ? mask(current[asking]) : undefined) : (current[asking] ?? settingSpecs[asking].defaultValue)) : undefined;

	return (
		<Box flexDirection="column">
			<Text bold>Set up platform-tui</Text>
			<Text dimColor>Press Enter to keep the value in brackets. Secrets are masked. Esc cancels.</Text>
			<Box flexDirection="column" marginTop={1}>
				{answered.map(name => (
					<Text key={name}>
						<Text color="green">✔ </Text>
						{name}: {shown(name, values)}
					</Text>
				))}
			</Box>
			{asking ? <Question name={asking} hint={hint} problem={state.problem} dispatch={dispatch} current={current}/> : null}
			{phase.kind === 'checking' ? (
				<WrappedText><Text color="cyan"><Spinner/></Text> Checking the settings with the platform (Get space {values.assistantId})…</WrappedText>
			) : null}
			{phase.kind === 'failed' ? (
				<Box flexDirection="column" borderStyle="round" borderColor="red" paddingX={1}>
					<Text color="red">{phase.message}</Text>
					<WrappedText>Press <Text bold>s</Text> to save anyway, <Text bold>e</Text> to edit the answers, <Text bold>q</Text> to quit without saving.</WrappedText>
				</Box>
			) : null}
		</Box>
	);
}
