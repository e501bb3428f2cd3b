import {Box, Text, useApp, useInput} from 'ink';
import Spinner from 'ink-spinner';
import {useEffect, useRef, useState} from 'react';
import {mask, settingNames, settingSpecs, type SettingName} from '../../config/settings.js';
import type {Space} from '../../platform/types.js';
import {TextInput} from '../components/text-input.js';

export type InitValues = Partial<Record<SettingName, string>>;

export type InitOutcome = {saved: boolean; cancelled: boolean};

const required: ReadonlySet<SettingName> = new Set(['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId']);

type Phase =
	| {kind: 'asking'; index: number}
	| {kind: 'checking'}
	| {kind: 'checked'; space: Space}
	| {kind: 'failed'; message: string}
	| {kind: 'done'; outcome: InitOutcome};

export type InitFormProps = {
	/** Current values (from flags, env or the store), used when the user just presses Enter. */
	current: InitValues;
	check: (values: InitValues) => Promise<Space>;
	save: (values: InitValues) => string;
	onDone: (outcome: InitOutcome) => void;
};

/** The `init` screen: one question per setting (secrets masked), one Get space check, then save. */
export function InitForm({current, check, save, onDone}: InitFormProps) {
	const {exit} = useApp();
	const [values, setValues] = useState<InitValues>({});
	const [phase, setPhase] = useState<Phase>({kind: 'asking', index: 0});
	const [problem, setProblem] = useState<string | undefined>();
	const [savedPath, setSavedPath] = useState<string | undefined>();
	// Key handlers may run before the next render; they read the phase and answers from refs.
	const phaseRef = useRef(phase);
	phaseRef.current = phase;
	const valuesRef = useRef(values);
	valuesRef.current = values;

	const finish = (outcome: InitOutcome) => {
		setPhase({kind: 'done', outcome});
		onDone(outcome);
	};

	useEffect(() => {
		// Exit once the final frame (saved / nothing saved) has rendered.
		if (phase.kind === 'done') {
			exit();
		}
	}, [phase.kind]);

	const store = (final: InitValues) => {
		try {
			setSavedPath(save(final));
			finish({saved: true, cancelled: false});
		} catch (error) {
			setPhase({kind: 'failed', message: `Could not save the settings: ${error instanceof Error ? error.message : String(error)}`});
		}
	};

	useInput((input, key) => {
		if (key.ctrl && input === 'c') {
			finish({saved: false, cancelled: true});
			return;
		}

		if (phaseRef.current.kind === 'failed') {
			if (input === 's') {
				store(valuesRef.current);
			} else if (input === 'e') {
				setPhase({kind: 'asking', index: 0});
			} else if (input === 'q' || key.escape) {
				finish({saved: false, cancelled: false});
			}
		}
	});

	useEffect(() => {
		if (phase.kind !== 'checking') {
			return;
		}

		let live = true;
		check(values).then(space => {
			if (live) {
				setPhase({kind: 'checked', space});
			}
		}, (error: unknown) => {
			if (live) {
				setPhase({kind: 'failed', message: error instanceof Error ? error.message : String(error)});
			}
		});
		return () => {
			live = false;
		};
	}, [phase.kind]);

	useEffect(() => {
		if (phase.kind === 'checked') {
			store(values);
		}
	}, [phase.kind]);

	const answered = phase.kind === 'asking' ? settingNames.slice(0, phase.index) : settingNames;
	const asking = phase.kind === 'asking' ? settingNames[phase.index] : undefined;

	const submit = (typed: string) => {
		const now = phaseRef.current;
		const name = now.kind === 'asking' ? settingNames[now.index] : undefined;
		if (!name || now.kind !== 'asking') {
			return;
		}

		const value = typed.trim() || current[name] || settingSpecs[name].defaultValue || '';
		if (value === '' && required.has(name)) {
			setProblem(`${name} is required.`);
			return;
		}

		if (name === 'baseUrl' && !/^https?:\/\/\S+$/.test(value)) {
			setProblem('The base URL must start with http:// or https://.');
			return;
		}

		setProblem(undefined);
		const next = {...valuesRef.current, ...(value ? {[name]: value} : {})};
		const nextPhase: Phase = now.index + 1 < settingNames.length ? {kind: 'asking', index: now.index + 1} : {kind: 'checking'};
		valuesRef.current = next;
		phaseRef.current = nextPhase;
		setValues(next);
		setPhase(nextPhase);
	};

	return (
		<Box flexDirection="column">
			<Text bold>Set up platform-tui</Text>
			<Text dimColor>Press Enter to keep the value in brackets. Secrets are masked.</Text>
			<Box flexDirection="column" marginTop={1}>
				{answered.map(name => (
					<Text key={name}>
						<Text color="green">✔ </Text>
						{name}: {settingSpecs[name].secret ? mask(values[name]) : (values[name] ?? '(not set)')}
					</Text>
				))}
			</Box>
			{asking ? (
				<Box flexDirection="column">
					<Text>
						<Text color="cyan">? </Text>
						{settingSpecs[asking].description} <Text dimColor>({settingSpecs[asking].env})</Text>
						{current[asking] || settingSpecs[asking].defaultValue ? <Text dimColor> [{settingSpecs[asking].secret ? mask(current[asking]) : (current[asking] ?? settingSpecs[asking].defaultValue)}]</Text> : null}
						{required.has(asking) ? null : <Text dimColor> (optional)</Text>}
					</Text>
					<Box>
						<Text>{'  '}</Text>
						<TextInput mask={settingSpecs[asking].secret} onSubmit={submit} onCancel={() => finish({saved: false, cancelled: true})}/>
					</Box>
					{problem ? <Text color="red">{problem}</Text> : null}
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
			{phase.kind === 'done' && phase.outcome.saved ? (
				<Box flexDirection="column">
					<Text color="green">✔ Saved to {savedPath}</Text>
				</Box>
			) : null}
			{phase.kind === 'done' && !phase.outcome.saved ? <Text color="yellow">Nothing was saved.</Text> : null}
		</Box>
	);
}
