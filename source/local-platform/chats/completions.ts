import {errorMessage, isRecord} from '../../format/value.js';
import type {ChatCompletion} from '../records.js';
import type {Agent} from 'undici';
import {request as undiciRequest} from 'undici';
import {isoNow} from '../clock.js';
import {remember, type ServiceContext} from '../context.js';
import {HttpError, badRequest, objectBody, requiredString, type JsonObject} from '../http/http.js';
import {newToken} from '../ids.js';
import {localCompletion, type ModelMessage} from './model.js';
import {ok, type Route} from '../http/router.js';
import {defaultModel} from './spaces.js';
import type {CompletionRecord} from '../types.js';

function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

export type CompletionSettings = {
	/** OpenAI-compatible endpoint on loopback; the local model answers when absent. */
	llmUrl: URL | undefined;
	llmModel: string | undefined;
	llmApiKey: string | undefined;
	userAgent: string;
};

/** POST /openai/chat/completions: the built-in extractive model, or a proxy to `llmUrl`. */
export class Completions {
	readonly records: CompletionRecord[] = [];

	constructor(
		private readonly context: ServiceContext,
		private readonly settings: CompletionSettings,
		private readonly agent: Agent,
	) {}

	async handle(body: JsonObject, source: CompletionRecord['source'] = 'api'): Promise<ChatCompletion> {
		const model = requiredString(body, 'model');
		if (!Array.isArray(body.messages) || body.messages.length === 0) {
			throw badRequest('"messages" is required and must be a non-empty array');
		}

		const messages: ModelMessage[] = body.messages.map((message: unknown, index: number) => {
			if (!isRecord(message) || typeof message.role !== 'string' || typeof message.content !== 'string') {
				throw badRequest(`messages[${index}] must be {role: string, content: string}`);
			}

			if (!['system', 'user', 'assistant'].includes(message.role)) {
				throw badRequest(`messages[${index}].role must be system, user or assistant`);
			}

			return {role: message.role, content: message.content};
		});
		const options = body.options ?? {};
		if (!isRecord(options)) {
			throw badRequest('"options" must be an object');
		}

		const {temperature} = options;
		if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2)) {
			throw badRequest('"options.temperature" must be a number from 0 to 2');
		}

		// Like the real gateway, top-level model parameters are dropped silently.
		const known = new Set(['model', 'messages', 'options', 'chatId', 'assistantId']);
		const ignoredFields = Object.keys(body).filter(field => !known.has(field));
		const result = await this.complete({model, messages, temperature: temperature ?? null, ignoredFields, source});
		const prompt = messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);
		const completion = estimateTokens(result.content);
		return {
			id: `chatcmpl-${newToken(24)}`,
			object: 'chat.completion',
			created: Math.floor(this.context.clock.now() / 1000),
			model,
			choices: [{index: 0, message: {role: 'assistant', content: result.content}, finish_reason: 'stop'}],
			usage: {prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion},
			localPlatform: {via: result.via, temperature: temperature ?? null, ignoredFields},
		};
	}

	async complete(call: {
		model: string;
		messages: ModelMessage[];
		temperature: number | null;
		ignoredFields: string[];
		source: CompletionRecord['source'];
	}): Promise<{content: string; via: CompletionRecord['via']}> {
		let content: string;
		let via: CompletionRecord['via'];
		const {llmUrl} = this.settings;
		if (llmUrl === undefined) {
			content = localCompletion(call.messages);
			via = 'local-model';
		} else {
			content = await this.proxyCompletion(llmUrl, call.model, call.messages, call.temperature);
			via = 'llm-url';
		}

		remember(this.records, {
			at: isoNow(this.context.clock),
			model: call.model,
			temperature: call.temperature,
			ignoredFields: call.ignoredFields,
			messages: call.messages,
			via,
			answer: content,
			source: call.source,
		}, this.context.limits.maxCompletionLog);
		return {content, via};
	}

	private async proxyCompletion(base: URL, model: string, messages: ModelMessage[], temperature: number | null): Promise<string> {
		const target = base.pathname.endsWith('/chat/completions')
			? base
			: new URL(`${base.pathname.replace(/\/$/, '')}/chat/completions`, base);
		let answer: unknown;
		try {
			const response = await undiciRequest(target, {
				method: 'POST',
				dispatcher: this.agent,
				signal: AbortSignal.any([this.context.signal, AbortSignal.timeout(120_000)]),
				headers: {
					'content-type': 'application/json',
					'user-agent': this.settings.userAgent,
					...(this.settings.llmApiKey === undefined ? {} : {authorization: `Bearer ${this.settings.llmApiKey}`}),
				},
				body: JSON.stringify({
					model: this.settings.llmModel ?? model,
					messages,
					stream: false,
					...(temperature === null ? {} : {temperature}),
				}),
			});
			const text = await response.body.text();
			if (response.statusCode < 200 || response.statusCode >= 300) {
				throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
			}

			answer = JSON.parse(text) as unknown;
		} catch (error) {
			throw new HttpError(502, 'BAD_GATEWAY', `The model at llmUrl failed: ${errorMessage(error)}`);
		}

		const choice = isRecord(answer) && Array.isArray(answer.choices) ? (answer.choices[0] as unknown) : undefined;
		const message = isRecord(choice) ? choice.message : undefined;
		if (!isRecord(message) || typeof message.content !== 'string') {
			throw new HttpError(502, 'BAD_GATEWAY', 'The model at llmUrl answered without choices[0].message.content');
		}

		return message.content;
	}
}

/** GET /openai/models: the model identifiers a key may use (the default one, and `llmModel` when set). */
export function modelList(settings: Pick<CompletionSettings, 'llmModel'>): {models: string[]} {
	return {models: [...new Set([defaultModel, ...(settings.llmModel ? [settings.llmModel] : [])])]};
}

export function completionRoutes(completions: Completions, settings: CompletionSettings): Route[] {
	return [
		{operation: 'chatCompletion', method: 'POST', path: '/openai/chat/completions', handle: async ({body}) => ok(await completions.handle(objectBody(body)))},
		{operation: 'listModels', method: 'GET', path: '/openai/models', handle: () => ok(modelList(settings))},
	];
}
