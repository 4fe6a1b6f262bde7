/**
 * What every notification bus adapter must do (libs/infrastructure/src/notifications): delivery
 * across instances and processes on one store, topic narrowing, organization isolation, bounded
 * retention, and no delivery of what was published before subscribing.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { BusNotification, NotificationBus } from '@svc/infrastructure/notifications';
import { MAX_NOTIFICATION_BYTES } from '@svc/infrastructure/notifications';
import { REGISTER_SWC, waitFor } from './event-store.contract';

export interface NotificationBusFixture {
  bus: NotificationBus;
  /** Another instance on the same store, as another api process would open. */
  openAnother(): Promise<NotificationBus>;
  /** The environment a child process passes to createNotificationBus to reach the same store. */
  spawnEnv: Record<string, string>;
  /** The retention bound the fixture configured, and how many notifications the store holds now. */
  retentionBound: number;
  retained(): Promise<number>;
  /** Whether the instance still runs its tail (poll loop or cursor). */
  isTailing(bus: NotificationBus): boolean;
  close(): Promise<void>;
}

const NOTIFICATIONS_INDEX = join(__dirname, '../../libs/infrastructure/src/notifications');

/** Publishes `count` notifications from a child process through createNotificationBus, then exits. */
function publishFromChild(env: Record<string, string>, org: string, topic: string, count: number): Promise<void> {
  const script = `
    const { createNotificationBus } = require(${JSON.stringify(NOTIFICATIONS_INDEX)});
    (async () => {
      const bus = await createNotificationBus(process.env);
      for (let i = 0; i < ${count}; i++) await bus.publish(${JSON.stringify(org)}, ${JSON.stringify(topic)}, { payload: 'child ' + i });
      await bus.close();
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', REGISTER_SWC, '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited with ${code}: ${stderr}`))));
  });
}

export function describeNotificationBusContract(name: string, make: () => Promise<NotificationBusFixture>): void {
  describe(`NotificationBus contract: ${name}`, () => {
    let fixture: NotificationBusFixture;
    let bus: NotificationBus;
    const opened: NotificationBus[] = [];
    // Unique per run: a MongoDB collection may outlive one test.
    let org: string;

    beforeEach(async () => {
      fixture = await make();
      bus = fixture.bus;
      org = `acme-${randomUUID().slice(0, 8)}`;
    });
    afterEach(async () => {
      for (const b of opened.splice(0)) await b.close();
      await fixture.close();
    });

    const another = async (): Promise<NotificationBus> => {
      const b = await fixture.openAnother();
      opened.push(b);
      return b;
    };
    const received = async (on: NotificationBus, orgId: string, topic?: string) => {
      const seen: BusNotification[] = [];
      const sub = await on.subscribe(orgId, { topic, onNotification: (n) => seen.push(n) });
      return { seen, sub, payloads: () => seen.map((n) => n.notification.payload) };
    };

    it('delivers a publish to subscribers of this instance and of another instance on the same store, in order', async () => {
      const other = await another();
      const here = await received(bus, org);
      const there = await received(other, org);
      for (let i = 0; i < 5; i++) await bus.publish(org, 'agents/a/sessions/s', { payload: `n${i}`, value: { '@type': 'x/y', seq: i } });
      await waitFor(() => here.seen.length === 5 && there.seen.length === 5, 'both subscribers');
      expect(there.payloads()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
      expect(there.seen[2]).toEqual({ org, topic: 'agents/a/sessions/s', notification: { payload: 'n2', value: { '@type': 'x/y', seq: 2 } } });
      expect(here.payloads()).toEqual(there.payloads());
    });

    it('delivers what another process publishes', async () => {
      const here = await received(bus, org);
      await publishFromChild(fixture.spawnEnv, org, 't', 3);
      await waitFor(() => here.seen.length === 3, 'the child process publishes', 10_000);
      expect(here.payloads()).toEqual(['child 0', 'child 1', 'child 2']);
    }, 30_000);

    it('sync delivers to this instance what any instance published before it, so a later log event cannot overtake it', async () => {
      const other = await another();
      const here = await received(bus, org);
      for (let i = 0; i < 20; i++) await other.publish(org, 't', { payload: `n${i}` });
      await bus.sync();
      // No waiting: sync has delivered them.
      expect(here.payloads()).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`));
      await bus.publish(org, 't', { payload: 'later' });
      await waitFor(() => here.seen.length === 21, 'the tail after sync');
      expect(here.payloads()[20]).toBe('later');
      // Without subscribers there is nothing to deliver: sync answers at once.
      await (await another()).sync();
    });

    it('narrows delivery to a topic and the topics under it', async () => {
      const all = await received(bus, org);
      const session = await received(bus, org, 'agents/a/sessions/s');
      const agent = await received(bus, org, 'agents/a');
      await bus.publish(org, 'agents/a/sessions/s', { payload: 's' });
      await bus.publish(org, 'agents/a/sessions/s2', { payload: 's2' });
      await bus.publish(org, 'agents/ab/sessions/s', { payload: 'ab' });
      await bus.publish(org, '', { payload: 'org-wide' });
      await waitFor(() => all.seen.length === 4, 'the unfiltered subscriber');
      expect(all.payloads()).toEqual(['s', 's2', 'ab', 'org-wide']);
      expect(session.payloads()).toEqual(['s']);
      expect(agent.payloads()).toEqual(['s', 's2']);
    });

    it('never delivers to another organization', async () => {
      const other = await another();
      const mine = await received(other, org);
      const theirs = await received(other, `${org}-other`);
      await bus.publish(`${org}-other`, 't', { payload: 'theirs' });
      await bus.publish(org, 't', { payload: 'mine' });
      await waitFor(() => mine.seen.length === 1 && theirs.seen.length === 1, 'both organizations');
      expect(mine.payloads()).toEqual(['mine']);
      expect(theirs.payloads()).toEqual(['theirs']);
    });

    it('is ephemeral: nothing published before subscribing is delivered', async () => {
      const early = await received(bus, org);
      await bus.publish(org, 't', { payload: 'before' });
      await waitFor(() => early.seen.length === 1, 'the early subscriber');
      const other = await another();
      const lateThere = await received(other, org);
      const lateHere = await received(bus, org);
      await bus.publish(org, 't', { payload: 'after' });
      await waitFor(() => lateThere.seen.length === 1 && lateHere.seen.length === 1, 'the late subscribers');
      expect(lateThere.payloads()).toEqual(['after']);
      expect(lateHere.payloads()).toEqual(['after']);
    });

    it('keeps at most its retention bound', async () => {
      const count = fixture.retentionBound * 2 + 7;
      for (let i = 0; i < count; i++) await bus.publish(org, 't', { payload: `n${i}` });
      expect(await fixture.retained()).toBeLessThanOrEqual(fixture.retentionBound + 1);
      // Still delivering after trimming.
      const sub = await received(bus, org);
      await bus.publish(org, 't', { payload: 'last' });
      await waitFor(() => sub.seen.length === 1, 'a publish after trimming');
    });

    it('stops delivering on close, and stops tailing when the last subscription closes', async () => {
      const a = await received(bus, org);
      const b = await received(bus, org);
      expect(fixture.isTailing(bus)).toBe(true);
      a.sub.close();
      await bus.publish(org, 't', { payload: 'one' });
      await waitFor(() => b.seen.length === 1, 'the remaining subscriber');
      expect(a.seen).toEqual([]);
      b.sub.close();
      b.sub.close(); // idempotent
      await waitFor(() => !fixture.isTailing(bus), 'the tail to stop', 5000);
      // A new subscription starts a new tail.
      const c = await received(bus, org);
      await bus.publish(org, 't', { payload: 'two' });
      await waitFor(() => c.seen.length === 1, 'the new subscriber');
      expect(c.payloads()).toEqual(['two']);
    });

    it('refuses a notification over the size limit before storing it', async () => {
      const sub = await received(bus, org);
      await expect(bus.publish(org, 't', { payload: 'x'.repeat(MAX_NOTIFICATION_BYTES) })).rejects.toThrow(/limit is/);
      await bus.publish(org, 't', { payload: 'small' });
      await waitFor(() => sub.seen.length === 1, 'the next notification');
      expect(sub.payloads()).toEqual(['small']);
    });
  });
}
