/** The serve box's pulse: requests per second over the last minute, as a sparkline or figures (pure). */
import {rateLine} from '../rate-line.js';
import type {StatusSection} from './counter-items.js';

export type EventRate = {
	/** Requests per whole second, oldest first (the last minute at most). */
	values: number[];
	/** Draw the sparkline (colour on a terminal); else the figures alone. */
	pictures: boolean;
};

/** The section: one line as wide as the box, `events ▁▂█▃ 3/s (peak 12/s)`. */
export function rateSection(rate: EventRate): StatusSection {
	return {
		key: 'rate',
		tone: 'cyan',
		items: [],
		fit: width => [{text: rateLine({label: 'events', values: rate.values, unit: value => `${value}/s`, width, pictures: rate.pictures})}],
	};
}
