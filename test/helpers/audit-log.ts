import { readFileSync } from 'node:fs';
import { eventually } from './fixtures.ts';
import type { Reply } from './http.ts';

/** The annotations of a request's ResponseComplete event in an audit log file (waits for the event). */
export async function auditAnnotationsOf(auditLog: string, res: Reply): Promise<Record<string, string>> {
  const id = String(res.headers['audit-id']);
  const event = await eventually(async () => {
    const lines = readFileSync(auditLog, 'utf8').split('\n').filter(Boolean);
    return lines.map((l) => JSON.parse(l)).find((e) => e.auditID === id && e.stage === 'ResponseComplete');
  }, `the audit event of ${id}`);
  return event.annotations ?? {};
}
