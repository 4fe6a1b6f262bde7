/**
 * The session phase: one session holding BENCH_SESSION_MESSAGES messages (default 10,000), written
 * through Write in provisional batches, then Read of its last 10 messages under load. Read is served
 * from the per-message read model (one document per offset), so its cost should not grow with the
 * session's length.
 */
import { type Client, runCount } from './load';

const AGENT_SERVICE = '/svc.nxagent.v2.AgentService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const BATCH = 100;
export const BENCH_SESSION = 'agents/bench/sessions/long';

/** Creates the agent and the session, and writes `messages` messages; answers the Read body to load. */
export async function seedLongSession(client: Client, messages: number): Promise<{ seconds: number; readBody: string }> {
  const agent = await client.post(`${AGENT_SERVICE}/CreateAgent`, JSON.stringify({ agent_id: 'bench', agent: { title: 'Bench' } }));
  if (agent.status !== 200) throw new Error(`CreateAgent answered ${agent.status}: ${agent.body.slice(0, 300)}`);
  const session = await client.post(`${AGENT_SERVICE}/CreateSession`, JSON.stringify({ parent: 'agents/bench', session_id: 'long' }));
  if (session.status !== 200) throw new Error(`CreateSession answered ${session.status}: ${session.body.slice(0, 300)}`);
  const batches = Math.ceil(messages / BATCH);
  // One writer: a session's writes are one stream, appended in order.
  const seeded = await runCount(client, {
    clients: 1,
    total: batches,
    path: `${AGENT_SERVICE}/Write`,
    body: (b) =>
      JSON.stringify({
        session: BENCH_SESSION,
        write_mode: 'WRITE_MODE_PROVISIONAL',
        messages: Array.from({ length: Math.min(BATCH, messages - b * BATCH) }, (_, i) => ({ '@type': ACTIVITY, user: { text: { text: `message ${b * BATCH + i}` } } })),
      }),
  });
  return { seconds: seeded.seconds, readBody: JSON.stringify({ session: BENCH_SESSION, session_offset: Math.max(0, messages - 10) }) };
}
