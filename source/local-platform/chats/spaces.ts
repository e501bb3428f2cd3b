import type {Space, SpaceModule} from '../records.js';
import {notFound} from '../http/http.js';
import {newId} from '../ids.js';
import {ok, type Route} from '../http/router.js';

export const defaultModel = 'AZURE_GPT_4o_2024_1120';

export type ExternalModule = {id: string; name: string; description: string; isExternal: true; configuration: Record<string, unknown>};

/** The one space (assistant) of the local platform and its modules. */
export class SpaceDirectory {
	readonly assistantId = newId('assistant');
	private readonly moduleIds = {builtIn: newId('mod'), external: newId('mod')};

	constructor(
		private readonly createdAt: string,
		/** The registered application URL, if any: the external module exists only while there is one. */
		private readonly webhookUrl: () => string | undefined,
	) {}

	get externalModule(): ExternalModule {
		return {
			id: this.moduleIds.external,
			name: 'ExternalModule',
			description: 'Answers through the application registered at the webhook URL',
			isExternal: true,
			configuration: {},
		};
	}

	get(spaceId: string): Space {
		if (spaceId !== this.assistantId) {
			throw notFound(`Space ${spaceId} not found`);
		}

		const modules: SpaceModule[] = [{
			id: this.moduleIds.builtIn,
			name: 'DocumentSearch',
			description: 'Answers from the documents uploaded to the chat and the company knowledge base',
			isExternal: false,
			configuration: {},
		}];
		if (this.webhookUrl() !== undefined) {
			modules.push(this.externalModule);
		}

		return {
			id: this.assistantId,
			name: 'Local Assistant',
			fallbackModule: 'DocumentSearch',
			languageModel: defaultModel,
			chatUpload: 'ENABLED',
			isExternal: false,
			modules,
			createdAt: this.createdAt,
			updatedAt: this.createdAt,
		};
	}
}

export function spaceRoutes(spaces: SpaceDirectory): Route[] {
	return [{operation: 'getSpace', method: 'GET', path: '/space/:spaceId', handle: ({params}) => ok(spaces.get(params.spaceId ?? ''))}];
}
