/**
 * The sentences for the local platform's error codes (source/local-platform/errors.ts): what
 * failed and what to do next.
 */
import {kebab} from '../kebab.js';
import type {ErrorWording, MessageTable} from './types.js';

type OptionData = {option: string; value: unknown; expected: string};
type UrlData = {option: string; url: string; host?: string};
type ListenData = {host: string; port: number; reason: string};
type FaultData = {rule: string; reason: string; operations: string[]; kinds: string[]};

/** The command-line flag of an in-process option name, e.g. `webhookUrl` → `--webhook-url`. */
function flagOf(option: string): string {
	const names: Record<string, string> = {latencyMs: 'latency', ingestionStepMs: 'ingestion-step', keyOverlapMs: 'key-overlap'};
	return `--${names[option] ?? kebab(option)}`;
}

export const localMessages: MessageTable = {
	'local-host-not-loopback': (data: {host: string}): ErrorWording => ({
		message: `The local platform only binds loopback addresses; ${data.host} is not one.`,
		next: 'Use --host 127.0.0.1, --host ::1 or --host localhost.',
	}),
	'local-port-invalid': (data: {port: unknown}): ErrorWording => ({
		message: `The port ${String(data.port)} is not a whole number from 0 to 65535.`,
		next: 'Pick one with --port N (0 picks a free one).',
	}),
	'local-port-in-use': (data: ListenData): ErrorWording => ({
		message: `Port ${data.port} on ${data.host} is already in use.`,
		next: 'Pick another with --port N (0 picks a free one), or stop what listens there.',
	}),
	'local-listen-failed': (data: ListenData): ErrorWording => ({
		message: `The local platform cannot listen on ${data.host}:${data.port}: ${data.reason}.`,
		next: 'Try another --port or --host.',
	}),
	'local-url-invalid': (data: UrlData): ErrorWording => ({
		message: `${flagOf(data.option)} "${data.url}" is not an http or https URL.`,
		next: `Give a full address such as http://127.0.0.1:8080${data.option === 'webhookUrl' ? '/webhook' : '/v1'}.`,
	}),
	'local-url-not-loopback': (data: UrlData): ErrorWording => ({
		message: `The local platform only contacts loopback addresses; ${flagOf(data.option)} names ${data.host ?? data.url}.`,
		next: 'Use an address on this machine (127.0.0.1, ::1 or localhost).',
	}),
	'local-option-invalid': (data: OptionData): ErrorWording => ({
		message: `${flagOf(data.option)} must be ${data.expected}; got ${JSON.stringify(String(data.value))}.`,
	}),
	'local-fault-invalid': (data: FaultData): ErrorWording => ({
		message: `--fault "${data.rule}" is not a fault rule: ${data.reason}.`,
		next: `Write OPERATION:KIND or OPERATION:KIND:TIMES; KIND is one of ${data.kinds.join(', ')}; OPERATION is * or one of ${data.operations.join(', ')}.`,
	}),
};
