import {errorMessage} from '../../format/value.js';
import type {BlobStore} from './blobs.js';
import {chunkPages} from './chunk.js';
import {isoNow} from '../clock.js';
import type {ContentRecord, ContentStore} from './content-store.js';
import type {ServiceContext} from '../context.js';
import {extractFile, ParseError} from './extract.js';
import {newId} from '../ids.js';
import type {ChunkIndex, IndexedChunk} from './search-index.js';

/** Turns uploaded bytes into searchable chunks, one state at a time. */
export class Ingestion {
	constructor(
		private readonly context: ServiceContext,
		private readonly blobs: BlobStore,
		private readonly store: ContentStore,
		private readonly index: ChunkIndex,
		/** Time held in each ingestion state (on the platform's clock). */
		private readonly stepMs: number,
	) {}

	private setIngestionState(content: ContentRecord, state: string, error?: string): void {
		content.ingestionState = state;
		content.ingestionError = error;
		content.updatedAt = isoNow(this.context.clock);
		this.context.emit({type: 'ingestion', at: content.updatedAt, contentId: content.id, key: content.key, state, ...(error === undefined ? {} : {error})});
	}

	/** Starts (or restarts, after a new upload) the ingestion of a content. */
	start(content: ContentRecord): void {
		const generation = ++content.generation;
		this.index.removeContent(content.id);
		content.chunkCount = 0;
		this.setIngestionState(content, 'QUEUED');
		this.context.track(this.ingest(content, generation));
	}

	/**
	 * QUEUED → INGESTION_READING (text extraction) → INGESTION_CHUNKING → INGESTION_EMBEDDING →
	 * FINISHED (chunks become searchable), each state held for `ingestionStepMs`. Unparsable
	 * bytes end in FAILED_PARSING. A newer upload of the same content supersedes this run.
	 */
	private async ingest(content: ContentRecord, generation: number): Promise<void> {
		const current = (): boolean => !this.context.signal.aborted && content.generation === generation;
		const step = async (): Promise<boolean> => {
			await this.context.clock.sleep(this.stepMs, this.context.signal);
			return current();
		};

		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_READING');
		let pages;
		try {
			const extraction = await extractFile(this.blobs.pathOf(content.id), content.mimeType, content.byteSize ?? 0, this.context.limits);
			pages = extraction.pages;
		} catch (error) {
			if (await step()) {
				const message = errorMessage(error);
				this.setIngestionState(content, error instanceof ParseError ? 'FAILED_PARSING' : 'FAILED_READING', message);
			}

			return;
		}

		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_CHUNKING');
		// Per content and in total, the index is capped; chunks beyond the cap are not searchable.
		const room = Math.max(0, this.context.limits.maxIndexedChunks - (this.index.size - content.chunkCount));
		const chunks = chunkPages(pages, {maxChunks: Math.min(this.context.limits.maxChunksPerContent, room)});
		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_EMBEDDING');
		if (!await step()) {
			return;
		}

		const indexed: IndexedChunk[] = chunks.map(chunk => ({
			chunkId: newId('chunk'),
			contentId: content.id,
			companyId: content.companyId,
			chatId: content.chatId,
			key: content.key,
			title: content.title,
			url: this.store.blobUrl(content, 'r'),
			order: chunk.order,
			startPage: chunk.startPage,
			endPage: chunk.endPage,
			text: chunk.text,
		}));
		this.index.replaceContent(content.id, indexed);
		content.chunkCount = indexed.length;
		this.setIngestionState(content, 'FINISHED');
	}

}
