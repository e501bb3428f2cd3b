/**
 * The upload screen's state: the view state and its pure reducer live beside this file (the
 * names are re-exported here); this holds the running state and tells subscribers of each change.
 */
import type {UploadEvent} from '../../workflow/events.js';
import {cancelUpload, failUpload, isUrgent, reduceUpload} from './reducer.js';
import {initialUploadState, type UploadViewState} from './view-state.js';

export {countFiles, hiddenSummary, listedFinishedRows, liveRows, transferRate, type FileCounts} from './file-rows.js';
export {cancelUpload, failUpload, isUrgent, reduceUpload} from './reducer.js';
export {initialUploadState, type FilePhase, type FileRow, type StaticItem, type UploadViewState} from './view-state.js';

/**
 * Holds the screen's state outside React; the workflow's events are applied as they come and
 * subscribers are told, so the app can re-render at a bounded rate.
 */
export class UploadViewModel {
	private current: UploadViewState;
	private readonly listeners = new Set<(urgent: boolean) => void>();

	constructor(private readonly clock: () => number = Date.now, prompt?: string, banner?: string) {
		this.current = initialUploadState(clock(), prompt, banner);
	}

	get state(): UploadViewState {
		return this.current;
	}

	now(): number {
		return this.clock();
	}

	apply(event: UploadEvent): void {
		this.current = reduceUpload(this.current, event, this.clock());
		this.notify(isUrgent(event));
	}

	fail(message: string): void {
		this.current = failUpload(this.current, message, this.clock());
		this.notify(true);
	}

	/** Cancels the screen; `resume` (how to continue, when the chat is known) shows under it. */
	cancel(resume?: string): void {
		if (!this.current.done) {
			if (resume !== undefined) {
				this.current = {...this.current, resume};
			}

			this.current = cancelUpload(this.current, this.clock());
			this.notify(true);
		}
	}

	subscribe(listener: (urgent: boolean) => void): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	private notify(urgent: boolean): void {
		for (const listener of this.listeners) {
			listener(urgent);
		}
	}
}
