import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

/**
 * A temporary audit policy that logs every request at Metadata level, and the flags that make a
 * server write it to `auditLog`; `dir` holds both (the caller may remove it when done).
 */
export function metadataAuditLog(prefix: string): { dir: string; auditLog: string; flags: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const policy = path.join(dir, 'policy.yaml');
  const auditLog = path.join(dir, 'audit.log');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  return { dir, auditLog, flags: [`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`] };
}
