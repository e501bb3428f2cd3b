/** The journal backend's settings (journal.ts), as `openJournal` (index.ts) gives them. */
import type {WriteAhead} from './wal/open.js';

export type JournalSettings = {
	maxAgeMs: number;
	maxEntries: number;
	/** Event ids waiting in memory at most; beyond, they wait on disk only. */
	memoryLimit: number;
	pruneIntervalMs: number;
	/** How often events held by other processes are looked at again (dead claims taken over), ms. */
	claimCheckMs: number;
	/** While writes fail, how often the disk is looked at again to resume by itself, ms. Default 1000. */
	spaceCheckMs?: number;
	abortGraceMs: number;
	/** This process owns the journal (`serve`): it writes new events and the index. */
	writer: boolean;
	/** How often accepted ids are written into the exactly-once index, ms. */
	indexFlushMs: number;
	/** New events go through this write-ahead log (wal/), acknowledged once it holds them; without it, once LMDB does. */
	writeAhead?: WriteAhead;
	/** Makes `accept` fail as a journal that cannot be written does (tests). */
	failWrites?: () => boolean;
	/** Runs on close (the owner lock's release). */
	onClose?: () => Promise<void>;
	/** Runs once LMDB has closed the file (the clean-stop seal, seal.ts); `writeFailed`: a commit of this process failed. */
	onClosed?: (run: {writeFailed: boolean}) => Promise<void>;
};

