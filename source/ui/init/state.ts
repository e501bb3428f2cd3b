/** The `init` form's state and its pure transitions (no Ink, no I/O): tested without a screen. */
import {connectionSettingNames, settingProblem, settingSpecs, type SettingName} from '../../config/settings.js';
import type {Space} from '../../platform/types.js';

export type InitValues = Partial<Record<SettingName, string>>;

export type InitOutcome = {saved: boolean; cancelled: boolean};

export const requiredSettings: ReadonlySet<SettingName> = new Set(['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId']);

export type InitPhase =
	| {kind: 'asking'; index: number}
	| {kind: 'checking'}
	| {kind: 'saving'}
	| {kind: 'failed'; message: string}
	| {kind: 'done'; outcome: InitOutcome};

export type InitState = {
	phase: InitPhase;
	values: InitValues;
	/** How many questions were answered; only those are listed (Esc leaves no empty rows behind). */
	asked: number;
	problem?: string | undefined;
	savedPath?: string;
	/** The space the check found, when it passed. */
	found?: Space;
};

export type InitAction =
	| {type: 'submit'; typed: string; current: InitValues}
	| {type: 'checked'; space: Space}
	| {type: 'checkFailed'; message: string}
	| {type: 'saved'; path: string}
	| {type: 'saveFailed'; message: string}
	/** A key pressed while a failed check is shown: s saves anyway, e edits, q or Esc quits. */
	| {type: 'failedKey'; input: string; escape: boolean}
	| {type: 'cancel'};

export const initialState: InitState = {phase: {kind: 'asking', index: 0}, values: {}, asked: 0};

function submit(state: InitState, typed: string, current: InitValues): InitState {
	const {phase} = state;
	const name = phase.kind === 'asking' ? connectionSettingNames[phase.index] : undefined;
	if (phase.kind !== 'asking' || !name) {
		return state;
	}

	const value = typed.trim() || current[name] || settingSpecs[name].defaultValue || '';
	if (value === '' && requiredSettings.has(name)) {
		return {...state, problem: `${name} is required.`};
	}

	if (value !== '' && settingProblem(name, value) !== undefined) {
		// The rule `config set` and the flags use; worded for the form.
		return {...state, problem: 'The base URL must start with http:// or https://.'};
	}

	const next = phase.index + 1 < connectionSettingNames.length ? {kind: 'asking' as const, index: phase.index + 1} : {kind: 'checking' as const};
	return {...state, problem: undefined, values: {...state.values, ...(value ? {[name]: value} : {})}, asked: phase.index + 1, phase: next};
}

export function initReducer(state: InitState, action: InitAction): InitState {
	switch (action.type) {
		case 'submit': {
			return submit(state, action.typed, action.current);
		}

		case 'checked': {
			return state.phase.kind === 'checking' ? {...state, found: action.space, phase: {kind: 'saving'}} : state;
		}

		case 'checkFailed':
		case 'saveFailed': {
			return {...state, phase: {kind: 'failed', message: action.message}};
		}

		case 'saved': {
			return {...state, savedPath: action.path, phase: {kind: 'done', outcome: {saved: true, cancelled: false}}};
		}

		case 'failedKey': {
			if (state.phase.kind !== 'failed') {
				return state;
			}

			if (action.input === 's') {
				return {...state, phase: {kind: 'saving'}};
			}

			if (action.input === 'e') {
				return {...state, phase: {kind: 'asking', index: 0}};
			}

			return action.input === 'q' || action.escape ? {...state, phase: {kind: 'done', outcome: {saved: false, cancelled: false}}} : state;
		}

		case 'cancel': {
			return state.phase.kind === 'done' ? state : {...state, phase: {kind: 'done', outcome: {saved: false, cancelled: true}}};
		}
	}
}

/**
 * What `init` prints once the form is gone, as ordinary output (the terminal wraps it, and the last
 * line ends with a newline at any window size): where the settings went, the space the check found
 * and the command to run next; or that nothing was saved.
 */
export function initSummary(state: InitState): string[] {
	const {phase, values} = state;
	if (phase.kind !== 'done' || !phase.outcome.saved) {
		return [phase.kind === 'done' && !phase.outcome.cancelled ? 'Nothing was saved.' : 'Cancelled; nothing was saved.'];
	}

	const {found} = state;
	const space = found
		? `✔ Found the space ${found.name ? `"${found.name}"` : values.assistantId ?? ''}${found.languageModel ? ` (model ${found.languageModel})` : ''}`
		: 'The settings were not checked; review them with platform-tui config list.';
	return [`✔ Saved to ${state.savedPath ?? ''}`, space, 'Next: platform-tui upload <folder> "<question>"'];
}
