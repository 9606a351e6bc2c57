/**
 * Annotations the request path adds to a request's audit event, each with the lowest audit level
 * whose events carry it (upstream's AddAnnotationWithLevel on admission attributes, which its audit
 * handler filters by the event's level). Most are Metadata; one that holds request content, such as
 * a mutating webhook's patch, is Request, so that a Metadata event does not show what its level
 * leaves out. A request's events all have the level its policy rule gave, so an annotation above it
 * is dropped when it is added.
 */
import type { RequestContext } from '../api/request-context.ts';
import { levelAtLeast, type Level } from './policy.ts';

/** The levels an annotation may have (None would be no event at all). */
export type AnnotationLevel = Exclude<Level, 'None'>;

/**
 * Adds an annotation to the request's audit event, if the request is audited at `level` or above.
 * A key already set keeps its value (upstream refuses to overwrite one).
 */
export function addAuditAnnotation(context: RequestContext, key: string, value: string, level: AnnotationLevel = 'Metadata'): void {
  const annotations = context.auditAnnotations;
  if (!annotations) return;
  // Without a known level, upstream assumes the highest rather than drop anything.
  if (level !== 'Metadata' && context.auditLevel && !levelAtLeast(context.auditLevel, level)) return;
  if (annotations[key] === undefined) annotations[key] = value;
}
