import {isIP} from 'node:net';
import {LocalPlatformError} from '../errors.js';

/** True for addresses on this machine only: localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(host: string): boolean {
	const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
	if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') {
		return true;
	}

	return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * Checks that a URL is http(s) on a loopback host; the local platform never contacts anything
 * else (webhook deliveries and the `llmUrl` proxy). Throws a LocalPlatformError naming the option.
 */
export function assertLoopbackUrl(value: string, option: string): URL {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new LocalPlatformError('local-url-invalid', {option, url: value}, `${option}: "${value}" is not a valid URL`);
	}

	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new LocalPlatformError('local-url-invalid', {option, url: value}, `${option}: only http and https URLs are supported, got ${url.protocol}`);
	}

	if (!isLoopbackHost(url.hostname)) {
		throw new LocalPlatformError(
			'local-url-not-loopback',
			{option, url: value, host: url.hostname},
			`${option}: the local platform only contacts loopback addresses (localhost, 127.0.0.1, ::1), got ${url.hostname}`,
		);
	}

	return url;
}
