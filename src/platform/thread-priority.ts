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
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
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

export type RealtimeResult =
  | { readonly ok: true; readonly tid: number; readonly priority: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Puts the process's main thread — armguard's control thread — at SCHED_FIFO `priority` (1–99) with
 * reset-on-fork: `chrt -f -R -p <priority> <pid>` (util-linux) sets the one thread whose id is the
 * pid, and threads it starts later (a filter worker started again, libuv's pool) begin at the normal
 * policy instead of inheriting it. The worker threads already running are left as they are. Needs
 * CAP_SYS_NICE or an RLIMIT_RTPRIO allowance (root, or `rtprio` in limits.conf). The policy is read
 * back from /proc (stat fields 40–41) before it is reported as applied.
 */
export function realtimeMainThread(priority: number): RealtimeResult {
  if (!Number.isInteger(priority) || priority < 1 || priority > 99)
    return { ok: false, reason: `real-time priority ${priority} is not an integer from 1 to 99` };
  const tid = process.pid;
  try {
    execFileSync('chrt', ['-f', '-R', '-p', String(priority), String(tid)], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { code?: string; stderr?: Buffer; message?: string };
    if (err.code === 'ENOENT') return { ok: false, reason: "'chrt' (util-linux) is not installed" };
    const detail = err.stderr?.toString().trim() || err.message || String(e);
    return { ok: false, reason: `chrt -f -R -p ${priority} ${tid} failed: ${detail}` };
  }
  const now = schedulingOf(tid);
  if (now === undefined || now.policy !== SCHED_FIFO || now.priority !== priority)
    return {
      ok: false,
      reason: `after chrt the thread's policy is ${now ? `${now.policy} priority ${now.priority}` : 'unreadable'}, not SCHED_FIFO ${priority}`,
    };
  return { ok: true, tid, priority };
}

/** Linux's SCHED_FIFO policy number (sched.h). */
export const SCHED_FIFO = 1;

/** A thread of this process: its policy number and real-time priority (/proc stat fields 41 and 40), or undefined. */
export function schedulingOf(tid: number): { policy: number; priority: number } | undefined {
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state): field n is rest[n − 3]
    const priority = Number(rest[40 - 3]);
    const policy = Number(rest[41 - 3]);
    return Number.isInteger(policy) && Number.isInteger(priority) ? { policy, priority } : undefined;
  } catch {
    return undefined;
  }
}
