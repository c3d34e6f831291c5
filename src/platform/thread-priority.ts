/**
 * The scheduling priority of the calling thread (Linux): worker threads that do background work for
 * the control loop (the network worker decoding a flood, the chunk filter worker solving) can be run
 * at a higher nice value than the control thread (their `nice` option), so that when the cores are
 * short the kernel runs the control step first. Off by default (bench/RESULTS.md, "Network
 * faults"): on the loaded 2-core bench it made no difference beyond the noise to a chunk flood's
 * late steps and the filter worker at nice 10 superseded more chunks under the flood; on the quiet
 * machine it took about a third off the flood's p99, but under 5 ms in no setting.
 *
 * Linux applies setpriority(PRIO_PROCESS, tid) to the one thread `tid` names; the calling thread's
 * id is read from /proc/thread-self. Raising the nice value needs no privilege; lowering it does,
 * so this only ever raises it.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export type ThreadPriorityResult =
  | { readonly ok: true; readonly tid: number; readonly nice: number }
  | { readonly ok: false; readonly reason: string };

/** The calling thread's kernel id (Linux), or undefined where /proc/thread-self does not exist. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Raise the calling thread's nice value to `nice` (−20…19; a thread already nicer is left alone). */
export function niceThisThread(nice: number): ThreadPriorityResult {
  if (!Number.isInteger(nice) || nice < -20 || nice > 19)
    return { ok: false, reason: `nice value ${nice} is not an integer from -20 to 19` };
  const tid = currentThreadId();
  if (tid === undefined) return { ok: false, reason: 'no /proc/thread-self (not Linux): thread priority unchanged' };
  try {
    const now = getPriority(tid);
    if (now >= nice) return { ok: true, tid, nice: now };
    setPriority(tid, nice);
    return { ok: true, tid, nice: getPriority(tid) };
  } catch (e) {
    return { ok: false, reason: `setpriority(${tid}, ${nice}) failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}
