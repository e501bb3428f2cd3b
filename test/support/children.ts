import {readFileSync} from 'node:fs';

/** The pids of `pid`'s children, as Linux lists them (/proc/<pid>/task/<pid>/children); none once it is gone. */
export function childrenOf(pid: number): number[] {
	try {
		return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
	} catch {
		return [];
	}
}
