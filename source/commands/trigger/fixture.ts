/**
 * The body `trigger --body FILE` and `trigger --from-event <id>` send: read from the file or the
 * stored event, given a fresh id and createdAt unless --keep-id, changed by each --set in order,
 * and checked by serve's intake before anything is sent.
 */
import {readFile} from 'node:fs/promises';
import {UserError} from '../../errors.js';
import {errorCode, errorMessage} from '../../format/value.js';
import {bodyText} from '../../receiver/intake/body.js';
import {checkedDelivery, freshIdentity, parseFixture, setPath} from '../../receiver/intake/fixture.js';
import {openStore, storedEvent, type StoreOptions} from '../events/shared.js';
import {UsageError} from '../../cli/validators.js';

export type FieldSet = {path: string; value: unknown};

export type FixtureSource = {kind: 'file'; path: string} | {kind: 'event'; id: string; store: StoreOptions};

/** Reads each `--set path=value`: a dotted path, then a JSON value (a string needs its quotes). */
export function parseSets(raw: unknown): FieldSet[] {
	const values = raw === undefined ? [] : (Array.isArray(raw) ? raw : [raw]);
	return values.map(entry => {
		const text = String(entry);
		const equals = text.indexOf('=');
		const path = equals > 0 ? text.slice(0, equals).trim() : '';
		if (path === '') {
			throw new UsageError('flag-invalid', `--set must be path=value, e.g. --set payload.userMessage.text='"What does it cost?"'; got ${JSON.stringify(text)}.`);
		}

		const json = text.slice(equals + 1);
		try {
			return {path, value: JSON.parse(json) as unknown};
		} catch {
			throw new UsageError('flag-invalid', `--set ${path}: the value must be JSON (a string in double quotes: --set ${path}='"text"'); got ${JSON.stringify(json)}.`);
		}
	});
}

/** The fixture's text and a name for it in messages. */
async function readSource(source: FixtureSource, env: NodeJS.ProcessEnv): Promise<{text: string; name: string}> {
	if (source.kind === 'file') {
		try {
			return {text: await readFile(source.path, 'utf8'), name: source.path};
		} catch (error) {
			const why = errorCode(error) === 'ENOENT' ? 'no such file' : errorMessage(error);
			throw new UserError('fixture-unreadable', `Cannot read the body file ${source.path}: ${why}`, {cause: error});
		}
	}

	const {backend, directory} = await openStore(source.store, 'read', env);
	try {
		const event = await storedEvent(backend, source.id, directory);
		return {text: bodyText(event), name: `event ${event.id}`};
	} finally {
		await backend.close();
	}
}

/** The signed delivery to send, or the reason serve would refuse it (a FixtureError). */
export async function fixtureDelivery(options: {source: FixtureSource; keepId: boolean; sets: readonly FieldSet[]; secret: string; now: Date; env: NodeJS.ProcessEnv}): Promise<{body: string; headers: Record<string, string>; event: string; id: string}> {
	const {text, name} = await readSource(options.source, options.env);
	const body = parseFixture(text, name);
	if (!options.keepId) {
		freshIdentity(body, options.now);
	}

	for (const {path, value} of options.sets) {
		setPath(body, path, value, name);
	}

	// Compact JSON, as the platform sends: a body the platform sent (or `events export` wrote) comes
	// out byte for byte the same apart from the fields changed.
	const delivery = checkedDelivery(JSON.stringify(body), {secret: options.secret, now: options.now, source: name});
	return {...delivery, event: typeof body.event === 'string' ? body.event : '(no event)', id: typeof body.id === 'string' ? body.id : '(no id)'};
}
