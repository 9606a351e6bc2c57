/**
 * The `--audit-log-*` flags' own checks (kube-apiserver's AuditLogOptions.Validate), kept apart from
 * the audit machinery so that reading the configuration loads none of it.
 */
import { AUDIT_MODES } from './sink.ts';

export const AUDIT_FORMATS: readonly string[] = ['legacy', 'json'];
const AUDIT_VERSION = 'audit.k8s.io/v1';

/** The audit settings of the Config. */
export interface AuditSettings {
  readonly auditPolicyFile: string;
  readonly auditLogPath: string;
  readonly auditLogMaxage: number;
  readonly auditLogMaxbackup: number;
  readonly auditLogMaxsize: number;
  readonly auditLogFormat: string;
  readonly auditLogCompress: boolean;
  readonly auditLogMode: string;
  readonly auditLogVersion: string;
  readonly auditLogBatchBufferSize: number;
}

/**
 * Upstream's AuditLogOptions.Validate (only when the log is on): the problems, each in its words;
 * empty when the flags are fine.
 */
export function auditFlagProblems(s: AuditSettings): string[] {
  if (s.auditLogPath === '') return [];
  const problems: string[] = [];
  if (!(AUDIT_MODES as readonly string[]).includes(s.auditLogMode)) {
    problems.push(`invalid audit log mode ${s.auditLogMode}, allowed modes are "${AUDIT_MODES.join(',')}"`);
  } else if (s.auditLogMode === 'batch' && s.auditLogBatchBufferSize <= 0) {
    problems.push(`invalid audit batch log buffer size ${s.auditLogBatchBufferSize}, must be a positive number`);
  }
  if (s.auditLogVersion !== AUDIT_VERSION) {
    const parts = s.auditLogVersion.split('/');
    if (parts.length > 2) problems.push(`unexpected GroupVersion string: ${s.auditLogVersion}`);
    else problems.push(`invalid group version, allowed versions are ["${AUDIT_VERSION}"]`);
  }
  if (!(AUDIT_FORMATS as readonly string[]).includes(s.auditLogFormat)) {
    problems.push(`invalid audit log format ${s.auditLogFormat}, allowed formats are "${AUDIT_FORMATS.join(',')}"`);
  }
  return problems;
}

