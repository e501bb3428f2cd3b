/* global process, console, performance, setImmediate, setTimeout -- Node globals: this file is plain JavaScript, run by node itself. */
/**
 * One run of the inspector's screen alone for the bench, in a process of its own and from source
 * (through tsx: the build is one bundle), with the React build the command loads: opens the journal in the data directory
 * given, renders the inspector (ink-testing-library) until the newest event shows, then pages
 * down `pages` times, one key and one frame at a time. Prints one JSON line: ms from process start and from the journal's open to the first page, ms
 * for the paging, and the peak RSS.
 */
import {JournalBackend, openJournal} from '../../source/receiver/journal/index.js';
import {withReactBuild} from '../../source/ui/react-build.js';

// React's build as the command loads it (production unless NODE_ENV names one).
const [{render}, {createElement}, {InspectorScreen}] = await withReactBuild(async () => Promise.all([import('ink-testing-library'), import('react'), import('../../source/ui/events/InspectorScreen.js')]));

const [directory = '', newestId = '', pagesText = '0'] = process.argv.slice(2);
const opening = performance.now();
const journal = await openJournal({directory, mode: 'read', verify: false});
if (!(journal instanceof JournalBackend)) {
	throw new TypeError('no journal');
}

const instance = render(createElement(InspectorScreen, {
	read: query => journal.readPage(query),
	get: async id => journal.get(id),
	where: directory,
	actions: {replay: async () => '', edit: async () => '', copy: id => id},
	colour: false,
	pollMs: 3_600_000,
	onQuit() {
		instance.unmount();
	},
}));
const shown = async test => {
	for (let turn = 0; turn < 100_000 && !test(); turn++) {
		await new Promise(resolve => {
			setImmediate(resolve);
		});
	}
};

await shown(() => (instance.lastFrame() ?? '').includes(newestId));
const firstPageMs = performance.now();
const pages = Number(pagesText);
for (let page = 0; page < pages; page++) {
	instance.stdin.write('\u001B[6~');
	await new Promise(resolve => {
		setImmediate(resolve);
	});
}

await new Promise(resolve => {
	setTimeout(resolve, 50);
});
const pagingMs = performance.now() - firstPageMs;
instance.unmount();
await journal.close();
console.log(JSON.stringify({firstPageMs, fromOpenMs: firstPageMs - opening, pagingMs, maxRssMiB: process.resourceUsage().maxRSS / 1024}));
