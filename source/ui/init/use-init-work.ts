/**
 * The `init` form's work with the world: one Get space check while the phase is `checking`, and
 * the write of the answers while it is `saving`; each outcome is dispatched to the form's reducer.
 */
import {useEffect, type Dispatch} from 'react';
import {errorMessage} from '../../format/value.js';
import type {Space} from '../../platform/types.js';
import type {InitAction, InitPhase, InitValues} from './state.js';

export type InitWork = {
	check: (values: InitValues) => Promise<Space>;
	save: (values: InitValues) => Promise<string> | string;
};

export function useInitWork(phase: InitPhase['kind'], values: InitValues, {check, save}: InitWork, dispatch: Dispatch<InitAction>): void {
	useEffect(() => {
		if (phase !== 'checking') {
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
	}, [phase, values, check, dispatch]);

	useEffect(() => {
		if (phase !== 'saving') {
			return;
		}

		// The outcome of the write (sync or async) is dispatched once it is known.
		void Promise.resolve().then(async () => save(values)).then(path => {
			dispatch({type: 'saved', path});
		}, (error: unknown) => {
			dispatch({type: 'saveFailed', message: `Could not save the settings: ${errorMessage(error)}`});
		});
	}, [phase, values, save, dispatch]);
}
