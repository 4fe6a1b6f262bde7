/**
 * Summarizes a V8 `.cpuprofile` (written by `node --cpu-prof`): self time per function, heaviest
 * first, so the report can say where a process spends its CPU without opening DevTools.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  location: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Share of samples outside `(idle)`, i.e. how busy the process's main thread was. */
  busyShare: number;
  top: HotFunction[];
  /** Self time grouped by package (node_modules/<pkg>), node internals, and the project's own code. */
  byOrigin: Array<{ origin: string; share: number }>;
}

export function summarizeProfile(file: string, topN = 15): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);
  const selfById = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfById.set(id, (selfById.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byFunction = new Map<string, HotFunction>();
  const byOrigin = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of selfById) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    total += micros;
    const name = frame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += micros;
      continue;
    }
    const location = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const key = `${name}@${location}`;
    const entry = byFunction.get(key) ?? { name, location, selfMs: 0, share: 0 };
    entry.selfMs += micros / 1000;
    byFunction.set(key, entry);
    const origin = originOf(frame.url, name);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + micros);
  }
  const busy = total - idle;
  const top = [...byFunction.values()]
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, topN)
    .map((f) => ({ ...f, share: busy > 0 ? (f.selfMs * 1000) / busy : 0 }));
  return {
    file,
    totalMs: total / 1000,
    busyShare: total > 0 ? busy / total : 0,
    top,
    byOrigin: [...byOrigin.entries()]
      .map(([origin, micros]) => ({ origin, share: busy > 0 ? micros / busy : 0 }))
      .sort((a, b) => b.share - a.share)
      .slice(0, 12),
  };
}

export function newestProfile(dir: string): string | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
}

export function formatProfile(label: string, summary: ProfileSummary): string {
  const lines = [
    `${label}: ${summary.file}`,
    `  sampled ${(summary.totalMs / 1000).toFixed(1)} s, main thread busy ${(summary.busyShare * 100).toFixed(0)}%`,
    '  self time by origin: ' + summary.byOrigin.map((o) => `${o.origin} ${(o.share * 100).toFixed(1)}%`).join(', '),
    '  top functions by self time (share of busy time):',
    ...summary.top.map((f) => `    ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}  ${f.location}`),
  ];
  return lines.join('\n');
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

function originOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/dist/')) return 'project code';
  return 'other';
}
