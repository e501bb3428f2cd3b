/**
 * A Bloom filter of event ids: "certainly not seen" without a read of the `seen` database, which
 * every new delivery would otherwise pay for (a read transaction renewed after each commit, a
 * B-tree lookup). `has` never answers false for an id that was added; it answers true for under
 * 0.1 % of other ids while fewer than 500 000 ids were added and about 2 % at a million (each true
 * answer is then looked up in the database, so only speed depends on it). Ids are never removed:
 * an id the retention drops stays in it until the index builds a new filter (`IdIndex.refreshFilter`).
 *
 * 2^23 bits (1 MiB), 7 probes per id, positions from two 32-bit FNV-1a-style hashes of the id's
 * UTF-16 code units (Kirsch–Mitzenmacher double hashing).
 */
const bits = 2 ** 23;
const mask = bits - 1;
const probes = 7;

export class IdFilter {
	private readonly words = new Int32Array(bits / 32);
	/** The two hashes of the id last hashed (fields, so hashing allocates nothing). */
	private first = 0;
	private second = 0;
	/** The id last hashed: `has` then `add` of one new id (every accepted delivery) hash it once. */
	private hashed: string | undefined;
	private count = 0;

	/** Ids added so far (an id added twice counts twice). */
	get added(): number {
		return this.count;
	}

	add(id: string): void {
		this.count++;
		this.hash(id);
		for (let probe = 0; probe < probes; probe++) {
			const position = (this.first + Math.imul(probe, this.second)) & mask;
			this.words[position >>> 5] = (this.words[position >>> 5] ?? 0) | (1 << (position & 31));
		}
	}

	has(id: string): boolean {
		this.hash(id);
		for (let probe = 0; probe < probes; probe++) {
			const position = (this.first + Math.imul(probe, this.second)) & mask;
			if (((this.words[position >>> 5] ?? 0) & (1 << (position & 31))) === 0) {
				return false;
			}
		}

		return true;
	}

	private hash(id: string): void {
		if (id === this.hashed) {
			return;
		}

		this.hashed = id;
		let first = 0x81_1C_9D_C5;
		let second = 0x05_0C_5D_1F;
		for (let index = 0; index < id.length; index++) {
			const code = id.charCodeAt(index);
			first = Math.imul(first ^ code, 0x01_00_01_93);
			second = Math.imul(second ^ code, 0x5B_D1_E9_95);
		}

		this.first = first;
		// Odd, so the probes of one id never repeat a position.
		this.second = second | 1;
	}
}
