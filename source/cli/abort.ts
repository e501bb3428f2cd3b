/** Resolves once any of the signals is aborted (at once when one already is): how a long-running command waits to be stopped. */
export function waitForAbort(...signals: AbortSignal[]): Promise<void> {
	return new Promise(resolve => {
		if (signals.some(signal => signal.aborted)) {
			resolve();
			return;
		}

		for (const signal of signals) {
			signal.addEventListener('abort', () => {
				resolve();
			}, {once: true});
		}
	});
}
