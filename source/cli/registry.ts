/**
 * Every command: the list of their declaration modules (each command's words, summary and the
 * lazy import of its module live beside it, in `<command>.command.ts`). Modules load only when
 * their command runs (or its help is asked for), so `--version` stays fast.
 */
import chat from '../commands/chat.command.js';
import completion from './completion.command.js';
import configGet from '../commands/config/get.command.js';
import configList from '../commands/config/list.command.js';
import configPath from '../commands/config/path.command.js';
import configSet from '../commands/config/set.command.js';
import eventsExport from '../commands/events/export.command.js';
import eventsInspect from '../commands/events/inspect.command.js';
import eventsList from '../commands/events/list.command.js';
import eventsRecover from '../commands/events/recover.command.js';
import eventsReplay from '../commands/events/replay.command.js';
import eventsShow from '../commands/events/show.command.js';
import init from '../commands/init.command.js';
import keysRotate from '../commands/keys/rotate.command.js';
import keysSet from '../commands/keys/set.command.js';
import keysShow from '../commands/keys/show.command.js';
import local from '../commands/local.command.js';
import serve from '../commands/serve.command.js';
import trigger from '../commands/trigger.command.js';
import upload from '../commands/upload.command.js';
import version from '../commands/version.command.js';
import type {CommandDeclaration} from './declaration.js';
import type {AnyCommand, FlagSpec} from './types.js';

/** A loaded command module's default export. */
export type LoadedCommand = AnyCommand;

export type RegistryEntry = CommandDeclaration;

/** In the order help lists them. */
export const registry: readonly RegistryEntry[] = [
	upload,
	chat,
	serve,
	trigger,
	eventsInspect,
	eventsList,
	eventsShow,
	eventsExport,
	eventsReplay,
	eventsRecover,
	keysSet,
	keysShow,
	keysRotate,
	local,
	configList,
	configGet,
	configSet,
	configPath,
	init,
	completion,
	version,
];

export {sharedFlags} from './flags.js';

/** The flags shown in help (those with a description), by name: what completion offers. */
export function describedFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.description !== undefined).map(([name]) => name);
}

/** The group words (`keys`, `config`, `events`). */
export function groups(): string[] {
	return [...new Set(registry.filter(entry => entry.words.length > 1).map(entry => entry.words[0] ?? ''))];
}
