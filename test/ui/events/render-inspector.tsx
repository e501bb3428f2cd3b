/** The inspector screen over events held in memory (memory-reader.ts), for screen tests that need no journal. */
import {render} from 'ink-testing-library';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {InspectorScreen} from '../../../source/ui/events/InspectorScreen.js';
import {memoryReader, storedEvent} from './memory-reader.js';

/** Renders the inspector over `events` (three with long chat ids by default); `cleanups` gets its unmount. `now`: its clock. */
export function renderInspector(colour: boolean, cleanups: Array<() => void>, events: StoredEvent[] = [0, 1, 2].map(index => storedEvent(index)), now?: () => number) {
	const instance = render(
		<InspectorScreen
			read={memoryReader(events)}
			get={async id => Promise.resolve(events.find(each => each.id === id))}
			where="journal"
			actions={{replay: async () => Promise.resolve(''), edit: async () => Promise.resolve(''), copy: id => id}}
			colour={colour}
			{...(now ? {now} : {})}
			pollMs={3_600_000}
			onQuit={() => undefined}
		/>,
	);
	cleanups.push(() => {
		instance.unmount();
	});
	return instance;
}
