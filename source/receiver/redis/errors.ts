import {CoreError} from '../../core-error.js';

/**
 * Why Redis could not be used. `url` in the data is always masked (`maskUrl`): these errors end up
 * in logs and on screens.
 */
export type RedisErrorCode = 'redis-url-invalid' | 'redis-unreachable' | 'redis-auth';

export type RedisErrorData = {
	/** The Redis URL, masked. */
	url: string;
	/** What the driver said when Redis is unreachable. */
	reason?: string;
};

export class RedisError extends CoreError<RedisErrorCode, RedisErrorData> {}
