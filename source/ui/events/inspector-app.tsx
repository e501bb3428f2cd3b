/**
 * The inspector's screen mounted on the command's terminal: the one module `events inspect` loads
 * (lazily, through ../react-build.ts) for its UI, so React and Ink load only once the journal is
 * open, with the build chosen there.
 */
import type {Instance} from 'ink';
import type {CommandContext} from '../../context.js';
import {renderApp} from '../render.js';
import {InspectorScreen, type InspectorProps} from './InspectorScreen.js';

export function renderInspector(context: Pick<CommandContext, 'stdout' | 'stdin' | 'stderr'>, props: InspectorProps): Instance {
	return renderApp(context, <InspectorScreen {...props}/>);
}
