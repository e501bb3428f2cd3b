/** Secrets are shown as `…last4` everywhere except the one-time reveal of a freshly rotated key. */
export function mask(secret: string | undefined): string {
	if (!secret) {
		return '(not set)';
	}

	return `…${secret.slice(-4)}`;
}

/** A URL with its password (and user) masked: `redis://user:…abcd@host:6379/0`. */
export function maskUrl(url: string): string {
	try {
		const parsed = new URL(url);
		if (parsed.password) {
			// A short password would show whole as its last four characters: hide it all.
			const password = decodeURIComponent(parsed.password);
			parsed.password = password.length <= 8 ? '%E2%80%A6' : mask(password).replace('…', '%E2%80%A6');
		}

		return decodeURI(parsed.toString());
	} catch {
		// A URL the parser refuses, such as a Redis Cluster's list of hosts: hide the password only.
		const userinfo = /^([a-z][a-z\d+.-]*:\/\/[^:@/]*:)([^@/]+)(@.*)$/i.exec(url);
		if (userinfo) {
			const password = userinfo[2] ?? '';
			return `${userinfo[1] ?? ''}${password.length <= 8 ? '…' : mask(password)}${userinfo[3] ?? ''}`;
		}

		// No password in it (no `user:password@` part): nothing to hide.
		if (/^[a-z][a-z\d+.-]*:\/\/[^:@/]*(?:@|[^@]*$)/i.test(url) && !/^[a-z][a-z\d+.-]*:\/\/[^@/]*:[^@/]*@/i.test(url)) {
			return url;
		}

		return mask(url);
	}
}
