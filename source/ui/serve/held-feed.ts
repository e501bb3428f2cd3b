/**
 * A feed whose items heard before anyone listens are kept (up to `limit`) and handed to the first
 * listener: a screen subscribes in an effect, after its first render, and must miss nothing.
 */
export type HeldFeed<T> = {
	push(item: T): void;
	on(listener: (item: T) => void): () => void;
};

export function heldFeed<T>(limit: number): HeldFeed<T> {
	const held: T[] = [];
	const listeners = new Set<(item: T) => void>();
	return {
		push(item) {
			if (listeners.size === 0) {
				if (held.length < limit) {
					held.push(item);
				}

				return;
			}

			for (const listener of listeners) {
				listener(item);
			}
		},
		on(listener) {
			listeners.add(listener);
			for (const item of held.splice(0)) {
				listener(item);
			}

			return () => {
				listeners.delete(listener);
			};
		},
	};
}
