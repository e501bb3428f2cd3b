import {Box, Text, useApp, useInput} from 'ink';
import Spinner from 'ink-spinner';
import {useEffect, useLayoutEffect, useReducer} from 'react';
import {mask, connectionSettingNames, settingSpecs, type SettingName} from '../../config/settings.js';
import {errorMessage} from '../../format/value.js';
import type {Space} from '../../platform/types.js';
import {TextInput} from '../components/text-input.js';
import {initialState, initReducer, initSummary, requiredSettings, type InitOutcome, type InitValues} from './state.js';

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

	useEffect(() => {
		if (phase.kind !== 'checking') {
			return;
		}

		let live = true;
		check(values).then(space => {
			if (live) {
				dispatch({type: 'checked', space});
			}
		}, (error: unknown) => {
			if (live) {
				dispatch({type: 'checkFailed', message: errorMessage(error)});
			}
		});
		return () => {
			live = false;
		};
	}, [phase.kind, values, check]);

	useEffect(() => {
		if (phase.kind !== 'saving') {
			return;
		}

		// The outcome of the write (sync or async) is dispatched once it is known.
		void Promise.resolve().then(async () => save(values)).then(path => {
			dispatch({type: 'saved', path});
		}, (error: unknown) => {
			dispatch({type: 'saveFailed', message: `Could not save the settings: ${errorMessage(error)}`});
		});
	}, [phase.kind, values, save]);

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
			{asking ? (
				<Box flexDirection="column">
					<Text>
						<Text color="cyan">? </Text>
						{settingSpecs[asking].description} <Text dimColor>({settingSpecs[asking].env})</Text>
						{hint ? <Text dimColor> [{hint}]</Text> : null}
						{requiredSettings.has(asking) ? null : <Text dimColor> (optional)</Text>}
					</Text>
					<Box>
						<Text>{'  '}</Text>
						{/* One input for every question (no remount), so keys typed right after a question shows are never lost. */}
						<TextInput
							mask={settingSpecs[asking].secret}
							onSubmit={typed => {
								dispatch({type: 'submit', typed, current});
							}}
							onCancel={() => {
								dispatch({type: 'cancel'});
							}}
						/>
					</Box>
					{state.problem ? <Text color="red">{state.problem}</Text> : null}
				</Box>
			) : null}
			{phase.kind === 'checking' ? (
				<Text><Text color="cyan"><Spinner/></Text> Checking the settings with the platform (Get space {values.assistantId})…</Text>
			) : null}
			{phase.kind === 'failed' ? (
				<Box flexDirection="column" borderStyle="round" borderColor="red" paddingX={1}>
					<Text color="red">{phase.message}</Text>
					<Text>Press <Text bold>s</Text> to save anyway, <Text bold>e</Text> to edit the answers, <Text bold>q</Text> to quit without saving.</Text>
				</Box>
			) : null}
		</Box>
	);
}
