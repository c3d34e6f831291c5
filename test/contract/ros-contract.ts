/**
 * One contract for every implementation of the ROS 2 interface (drivers/ros2/interface.ts): the
 * in-process FAKE graph runs it in CI; the rclnodejs adapter runs it where ROS 2 is sourced
 * (ROS_DISTRO set; see hardware.md "Running the ROS 2 contract suite").
 */
import { describe, expect, it } from 'vitest';
import type { RosContext } from '../../drivers/ros2/interface.js';
import { QOS_LATCHED, QOS_RELIABLE, QOS_SENSOR_DATA } from '../../drivers/ros2/interface.js';

export interface RosHarness {
  ctx: RosContext;
  /** Let `seconds` of node time pass (fake: advance manual timers; real: wait and spin). */
  pass(seconds: number): Promise<void>;
  close(): Promise<void>;
}

interface StringMsg {
  data: string;
}

/** One event-loop turn, so settled promises' callbacks have run (not a sleep). */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

export function rosContract(name: string, make: () => Promise<RosHarness>): void {
  describe(`ROS 2 interface contract: ${name}`, () => {
    const unique = () => `/armguard_contract_${Math.floor(Math.random() * 1e9)}`;

    it('delivers published messages to a matching subscription, in order', async () => {
      const h = await make();
      const topic = unique();
      const a = h.ctx.createNode('contract_pub');
      const b = h.ctx.createNode('contract_sub');
      const got: string[] = [];
      b.createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_RELIABLE, (m) => got.push(m.data));
      const pub = a.createPublisher<StringMsg>('std_msgs/msg/String', topic, QOS_RELIABLE);
      await h.pass(0.2);
      for (const s of ['one', 'two', 'three']) pub.publish({ data: s });
      await h.pass(0.3);
      expect(got).toEqual(['one', 'two', 'three']);
      await h.close();
    });

    it('a reliable subscription does not match a best-effort publisher; a best-effort one does', async () => {
      const h = await make();
      const topic = unique();
      const pubNode = h.ctx.createNode('contract_be_pub');
      const subNode = h.ctx.createNode('contract_be_sub');
      const reliable: string[] = [];
      const bestEffort: string[] = [];
      subNode.createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_RELIABLE, (m) => reliable.push(m.data));
      subNode.createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_SENSOR_DATA, (m) => bestEffort.push(m.data));
      const pub = pubNode.createPublisher<StringMsg>('std_msgs/msg/String', topic, QOS_SENSOR_DATA);
      await h.pass(0.2);
      pub.publish({ data: 'x' });
      await h.pass(0.3);
      expect(reliable).toEqual([]);
      expect(bestEffort).toEqual(['x']);
      await h.close();
    });

    it('a transient-local subscription gets the last latched message when it joins late', async () => {
      const h = await make();
      const topic = unique();
      const pubNode = h.ctx.createNode('contract_latch_pub');
      const pub = pubNode.createPublisher<StringMsg>('std_msgs/msg/String', topic, QOS_LATCHED);
      pub.publish({ data: 'armed' });
      pub.publish({ data: 'hold' });
      await h.pass(0.2);
      const got: string[] = [];
      h.ctx.createNode('contract_latch_sub').createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_LATCHED, (m) => got.push(m.data));
      await h.pass(0.3);
      expect(got).toEqual(['hold']);
      await h.close();
    });

    it('answers a service call', async () => {
      const h = await make();
      const name = `${unique()}_release`;
      const server = h.ctx.createNode('contract_srv');
      let calls = 0;
      server.createService<Record<string, never>, { success: boolean; message: string }>('std_srvs/srv/Trigger', name, () => ({
        success: ++calls === 1,
        message: `call ${calls}`,
      }));
      const client = h.ctx.createNode('contract_cli').createClient<Record<string, never>, { success: boolean; message: string }>('std_srvs/srv/Trigger', name);
      expect(await client.call({})).toEqual({ success: true, message: 'call 1' });
      expect(await client.call({})).toEqual({ success: false, message: 'call 2' });
      await h.close();
    });

    it('a call to a service with no server rejects once its timeout has passed, not before', async () => {
      const h = await make();
      const name = `${unique()}_nobody`;
      const client = h.ctx.createNode('contract_cli_none').createClient<Record<string, never>, { success: boolean }>('std_srvs/srv/Trigger', name);
      const seen: { outcome: 'pending' | 'resolved' | Error } = { outcome: 'pending' };
      void client.call({}, 0.5).then(
        () => (seen.outcome = 'resolved'),
        (e: Error) => (seen.outcome = e),
      );
      await h.pass(0.3);
      await turn();
      expect(seen.outcome).toBe('pending');
      await h.pass(0.4);
      await turn();
      expect(seen.outcome).toBeInstanceOf(Error);
      expect(seen.outcome instanceof Error && seen.outcome.message).toContain(name);
      await h.close();
    });

    it('a call made before its server exists is answered once the server appears within the timeout', async () => {
      const h = await make();
      const name = `${unique()}_late`;
      const client = h.ctx.createNode('contract_cli_late').createClient<Record<string, never>, { success: boolean; message: string }>('std_srvs/srv/Trigger', name);
      const answer = client.call({}, 2);
      await h.pass(0.2);
      h.ctx.createNode('contract_srv_late').createService<Record<string, never>, { success: boolean; message: string }>('std_srvs/srv/Trigger', name, () => ({
        success: true,
        message: 'late',
      }));
      await h.pass(0.5);
      expect(await answer).toEqual({ success: true, message: 'late' });
      await h.close();
    });

    it('resolves private names and applies remaps', async () => {
      const h = await make();
      const node = h.ctx.createNode('gate', { namespace: '/armguard', remaps: { '/armguard/gate/out': '/controller/in' } });
      const pub = node.createPublisher<StringMsg>('std_msgs/msg/String', '~/out', QOS_RELIABLE);
      const state = node.createPublisher<StringMsg>('std_msgs/msg/String', 'state', QOS_RELIABLE);
      expect(pub.topic).toBe('/controller/in');
      expect(state.topic).toBe('/armguard/state');
      const got: string[] = [];
      h.ctx.createNode('controller').createSubscription<StringMsg>('std_msgs/msg/String', '/controller/in', QOS_RELIABLE, (m) => got.push(m.data));
      await h.pass(0.2);
      pub.publish({ data: 'chunk' });
      await h.pass(0.3);
      expect(got).toEqual(['chunk']);
      await h.close();
    });

    it('fires timers at their period until cancelled', async () => {
      const h = await make();
      const node = h.ctx.createNode('contract_timer');
      let n = 0;
      const timer = node.createTimer(0.1, () => n++);
      await h.pass(0.55);
      timer.cancel();
      const seen = n;
      await h.pass(0.3);
      expect(seen).toBeGreaterThanOrEqual(4);
      expect(seen).toBeLessThanOrEqual(6);
      expect(n).toBe(seen);
      await h.close();
    });
  });
}
