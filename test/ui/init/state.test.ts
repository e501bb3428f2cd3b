import {describe, expect, it} from 'vitest';
import {initialState, initReducer, type InitAction, type InitState} from '../../../source/ui/init/state.js';

function play(actions: InitAction[], from: InitState = initialState): InitState {
	return actions.reduce(initReducer, from);
}

const answers = ['http://127.0.0.1:4010', 'sk_1', 'app', 'user', 'company', 'space', '', ''];

describe('init form state', () => {
	it('counts only answered questions, so a cancel lists no empty rows', () => {
		const state = play([{type: 'submit', typed: 'http://127.0.0.1:4010', current: {}}, {type: 'cancel'}]);
		expect(state.asked).toBe(1);
		expect(state.phase).toEqual({kind: 'done', outcome: {saved: false, cancelled: true}});
		expect(play([{type: 'cancel'}], state)).toBe(state);
	});

	it('checks after the last answer, keeps the space found, and e starts the answers again', () => {
		const checking = play(answers.map(typed => ({type: 'submit', typed, current: {}})));
		expect(checking.phase).toEqual({kind: 'checking'});
		expect(checking.values.model).toBe('AZURE_GPT_4o_2024_1120');
		expect(checking.values.endpointSecret).toBeUndefined();
		const saving = play([{type: 'checked', space: {name: 'Support'}}], checking);
		expect(saving.phase).toEqual({kind: 'saving'});
		expect(saving.found?.name).toBe('Support');
		const failed = play([{type: 'checkFailed', message: 'HTTP 401'}], checking);
		expect(play([{type: 'failedKey', input: 'e', escape: false}], failed).phase).toEqual({kind: 'asking', index: 0});
		expect(play([{type: 'failedKey', input: 's', escape: false}], failed).phase).toEqual({kind: 'saving'});
		expect(play([{type: 'failedKey', input: '', escape: true}], failed).phase).toEqual({kind: 'done', outcome: {saved: false, cancelled: false}});
	});
});
