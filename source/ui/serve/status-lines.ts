/**
 * What the serve status box says, line by line, fitted to its width (pure). The box is a list of
 * sections (address and key, store, counters, cluster queue, key hints or the stop notice); each
 * section is a list of items, and the items of a section are packed onto as many lines as they
 * need, joined by ` · `, so no figure and no key hint is ever cut. A new section (readiness,
 * metrics) is one more entry in `statusSections`.
 */
import {formatCountdown, formatMs} from '../../format/duration.js';
import {plural} from '../../format/text.js';
import {cutMiddle, displayWidth, oneLine} from '../../format/width.js';
import type {BackendStats} from '../../receiver/store/backend.js';
import type {ReceiverCounters} from '../../receiver/events.js';
import {wrapParagraphs} from '../wrap.js';
import {counterItems, separator, stopItems, type StatusItem, type StatusSection, type Tone} from './counter-items.js';
import {rateSection, type EventRate} from './rate-section.js';

/** The API key in use and the rotation state (re-read every second, so a rotation shows at once). */
export type KeyStatus = {
	keyMasked: string;
	/** `env`: the key came from PLATFORM_API_KEY, so a rotation stored in the config file is not picked up. */
	source?: 'env' | 'stored';
	/** The key a rotation replaced, while it works; never the key in use unless `storedKeyMasked` is set. */
	previousKeyMasked?: string;
	/** ISO time the previous key stops working. */
	previousKeyExpiresAt?: string;
	/** Set when serve runs on the replaced key (from PLATFORM_API_KEY): the stored key, to restart with. */
	storedKeyMasked?: string;
};

export type {StatusSection} from './counter-items.js';

export type StatusLine = {key: string; items: StatusItem[]; tone?: Tone; spinner?: boolean};

export type StatusInput = {
	url: string;
	/** The profile of the config file serve runs with, when it is not `default`. */
	profile?: string;
	secretCount?: number;
	store?: string;
	/** Start-up warnings (a Redis without persistence, a data or config folder others can reach), one item each. */
	warnings?: string[];
	keyStatus: KeyStatus;
	now: number;
	counters: ReceiverCounters;
	queue?: BackendStats['queue'];
	/** serve's status line (ready, degraded …, draining) and, when degraded, what to do. */
	health?: {text: string; ok: boolean; next?: string};
	drainTimeoutMs: number;
	draining?: {timeoutMs: number};
	stopped?: {cutOff: number; leftWaiting: number};
	/** Whether rows can be selected (the hints then name the keys). */
	selectable: boolean;
	/** Requests per second over the last minute, and whether to draw them (see rate-section.ts). */
	rate?: EventRate;
};

/** The sections of the box, top to bottom. */
export function statusSections(input: StatusInput): StatusSection[] {
	const key = input.keyStatus;
	const expiresAt = key.previousKeyExpiresAt ? Date.parse(key.previousKeyExpiresAt) : Number.NaN;
	const address: StatusItem[] = [
		{text: input.url, tone: 'bold'},
		...(input.profile === undefined ? [] : [{text: `profile ${input.profile}`, tone: 'cyan' as const}]),
		...(input.secretCount === undefined ? [] : [{text: plural(input.secretCount, 'endpoint secret'), tone: 'green' as const}]),
		{text: `key ${key.keyMasked}${key.source === 'env' ? ' (from PLATFORM_API_KEY)' : ''}`, tone: 'bold'},
	];
	const sections: StatusSection[] = [{key: 'address', items: address}];
	const rotation = Number.isFinite(expiresAt) && expiresAt > input.now ? rotationSection(key, expiresAt, input.now) : undefined;
	if (rotation) {
		sections.push(rotation);
	}

	if (input.store) {
		sections.push({key: 'store', items: [{text: `events in ${input.store}`}], tone: 'dim', path: true});
	}

	if (input.warnings) {
		sections.push({key: 'warnings', tone: 'yellow', wrap: true, items: input.warnings.map(text => ({text: `warning: ${text}`}))});
	}

	if (input.health) {
		// The reason and the next step whole, each on lines of its own: what to do is never cut off.
		const {text, next} = input.health;
		sections.push({key: 'health', tone: input.health.ok ? 'green' : 'red', wrap: true, items: [{text}, ...(next ? [{text: `next: ${next}`}] : [])]});
	}

	sections.push({key: 'counters', items: counterItems(input.counters)});
	if (input.rate) {
		sections.push(rateSection(input.rate));
	}

	if (input.queue) {
		const {queue} = input;
		sections.push({key: 'queue', tone: 'cyan', items: [
			{text: `cluster queue: waiting ${queue.waiting}`},
			{text: `active ${queue.active}`},
			{text: `completed ${queue.completed}`},
			{text: `failed ${queue.failed}`},
		]});
	}

	sections.push(footerSection(input));
	return sections;
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/** `2025-03-02 14:05` in local time. */
function localMinute(ms: number): string {
	const date = new Date(ms);
	return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${pad2(date.getHours())}:${pad2(date.getMinutes())}`;
}

/**
 * The rotation while the previous key is valid. When serve still runs on the key that was
 * rotated out (it came from PLATFORM_API_KEY, read once at start), that is said plainly, with the
 * stored key to restart with and until when the key in use works. Wrapped onto lines of its own,
 * never cut. A previous key that is the key in use otherwise is no previous key: nothing is said.
 */
function rotationSection(key: KeyStatus, expiresAt: number, now: number): StatusSection | undefined {
	const previous = key.previousKeyMasked ?? '';
	const until = `${localMinute(expiresAt)} (in ${formatCountdown(expiresAt - now)})`;
	if (key.storedKeyMasked) {
		return {key: 'rotation', tone: 'yellow', wrap: true, items: [{text: `The key was rotated to ${key.storedKeyMasked} (stored): serve still signs and calls the platform with the previous key ${previous} until it is restarted with PLATFORM_API_KEY set to ${key.storedKeyMasked} (or unset); ${previous} is valid until ${until}.`}]};
	}

	if (previous === '' || previous === key.keyMasked) {
		return undefined;
	}

	return {key: 'rotation', tone: 'yellow', wrap: true, items: [{text: `previous key ${previous} valid until ${until}`}]};
}

function footerSection(input: StatusInput): StatusSection {
	if (input.stopped) {
		const items: StatusItem[] = [{text: 'Stopped.'}, ...stopItems(input.stopped)];
		return {key: 'footer', tone: 'dim', items};
	}

	if (input.draining) {
		return {key: 'footer', tone: 'yellow', spinner: true, items: [
			{text: 'Stopping: no new events'},
			{text: input.counters.processing === 0 ? 'no job running' : `waiting up to ${formatMs(input.draining.timeoutMs)} for ${plural(input.counters.processing, 'job')}…`},
			{text: 'Ctrl+C again quits at once'},
		]};
	}

	const keys: StatusItem[] = input.selectable ? [{text: '↑/↓ select'}, {text: 'Enter details'}, {text: 'r replay failed'}, {text: '? help'}] : [];
	return {key: 'footer', tone: 'dim', items: [
		...keys,
		{text: 'q or Ctrl+C to stop'},
		{text: `running jobs get ${formatMs(input.drainTimeoutMs)} to finish`},
	]};
}

/**
 * Packs each section's items onto lines of at most `width` columns: items are joined by ` · ` and
 * a line breaks between items, never inside one. An item wider than a whole line (a narrow
 * terminal) is cut with `…` as a last resort; a path is cut in the middle.
 */
export function statusLines(sections: StatusSection[], width: number): StatusLine[] {
	const lines: StatusLine[] = [];
	for (const section of sections) {
		let current: StatusItem[] = [];
		let used = 0;
		// The first line of a section with a spinner has 2 columns less.
		const lineRoom = () => (section.spinner && !lines.some(line => line.key === section.key) ? width - 2 : width);
		const push = () => {
			const first = !lines.some(line => line.key === section.key);
			lines.push({key: section.key, items: current, ...(section.tone ? {tone: section.tone} : {}), ...(section.spinner && first ? {spinner: true} : {})});
			current = [];
			used = 0;
		};

		const items = section.fit?.(lineRoom()) ?? section.items;
		if (section.wrap) {
			for (const item of items) {
				for (const part of wrapParagraphs(item.text, width).split('\n')) {
					current = [{...item, text: part}];
					push();
				}
			}

			continue;
		}

		for (const item of items) {
			const length = displayWidth(item.text);
			if (current.length > 0 && used + separator.length + length > lineRoom()) {
				push();
			}

			const room = lineRoom();
			const text = length > room ? (section.path ? cutMiddle(item.text, room) : oneLine(item.text, room)) : item.text;
			used += (current.length === 0 ? 0 : separator.length) + displayWidth(text);
			current.push(text === item.text ? item : {...item, text});
		}

		if (current.length > 0) {
			push();
		}
	}

	return lines;
}

/** A status line as plain text. */
export function lineText(line: StatusLine): string {
	return line.items.map(item => item.text).join(separator);
}
