import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** One audit.k8s.io/v1 Event as read back from the log. */
export interface AuditEvent {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  impersonatedUser?: { username?: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { metadata: Record<string, never>; status?: string; message?: string; reason?: string; details?: any; code?: number };
  requestObject?: any;
  responseObject?: any;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Every line of the log, parsed (each must be one JSON object). */
export async function readEvents(file: string): Promise<{ events: AuditEvent[]; lines: string[] }> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const lines = text.split('\n').filter((l) => l !== '');
  return { events: lines.map((l) => JSON.parse(l) as AuditEvent), lines };
}

/**
 * The events of one request (by its Audit-Id), waiting until there are at least `count` (a
 * streamed body's ResponseComplete is written once the response ends, which the client may see first).
 */
export async function eventsOf(file: string, auditID: string, count: number, timeoutMs = 5000): Promise<AuditEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { events } = await readEvents(file);
    const mine = events.filter((e) => e.auditID === auditID);
    if (mine.length >= count || Date.now() > deadline) return mine;
    await sleep(20);
  }
}

/** The Audit-Id header of a reply. */
export function auditIdOf(res: { headers: Record<string, string | string[] | undefined> }): string {
  const id = res.headers['audit-id'];
  if (typeof id !== 'string' || id === '') throw new Error('the response has no Audit-Id header');
  return id;
}
