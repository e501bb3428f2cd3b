/** The ids seen last, at most `capacity` of them (the oldest forgotten first): bounded memory. */
export class RecentIds {
	private readonly ids = new Set<string>();
	private readonly order: string[] = [];
	private next = 0;

	constructor(private readonly capacity = 50_000) {}

	/** Whether `id` was seen; remembers it either way. */
	seen(id: string): boolean {
		if (this.ids.has(id)) {
			return true;
		}

		if (this.order.length < this.capacity) {
			this.order.push(id);
		} else {
			const oldest = this.order[this.next];
			if (oldest !== undefined) {
				this.ids.delete(oldest);
			}

			this.order[this.next] = id;
			this.next = (this.next + 1) % this.capacity;
		}

		this.ids.add(id);
		return false;
	}

	get size(): number {
		return this.ids.size;
	}
}
