import type {PlatformClient} from '../platform/client.js';

/** The platform operations the workflow uses. */
export type UploadClient = Pick<PlatformClient,
	'getSpace' | 'createChat' | 'upsertContent' | 'finalizeContent' | 'putBlob' | 'searchContent' | 'deleteContent' | 'createSpaceMessage' | 'getLatestMessage' | 'getChatMessages'>;
