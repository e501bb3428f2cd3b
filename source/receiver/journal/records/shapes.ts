/**
 * The shapes of what the journal keeps (store.ts): an event's record without its steps, and the
 * keys of the events (time, id) and of the steps (id, generation, index).
 */
import type {StoredEvent} from '../../store/backend.js';

/** A stored event without its steps, plus the generation its steps are kept under. */
export type EventRecord = Omit<StoredEvent, 'steps'> & {generation: number};
export type TimeKey = [number, string];
export type StepKey = [string, number, number];
