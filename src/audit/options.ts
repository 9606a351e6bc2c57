/**
 * The `--audit-*` flags, checked and turned into an Auditor as kube-apiserver does it: the log
 * backend exists when `--audit-log-path` is set (its file is created at start even without a
 * policy), and events are recorded only when a policy (`--audit-policy-file`) is loaded too.
 */
import type { Logger } from 'pino';
import { StartupError } from '../startup-error.ts';
import { Auditor, type AuditFormat } from './auditor.ts';
import { RotatingFile, MEGABYTE } from './log-file.ts';
import { loadPolicyFile, PolicyChecker } from './policy.ts';
import type { AuditSettings } from './flags.ts';
import { batchSink, blockingSink, fileWriter, stdoutWriter, type AuditMode, type LineWriter } from './sink.ts';

export interface AuditSetup {
  /** Set when requests are audited (a policy and a log). */
  readonly auditor: Auditor | undefined;
  /** Writes what is queued and closes the log (also when nothing was audited). */
  close(): Promise<void>;
}

/**
 * Reads the policy (its errors are kube-apiserver's start-up errors), makes sure of the log file
 * and builds the auditor. Throws PolicyError for a bad policy, and the file system's error when
 * the log file cannot be created.
 */
export async function setUpAudit(s: AuditSettings, logger: Logger): Promise<AuditSetup> {
  const parsed = s.auditPolicyFile ? await loadPolicyFile(s.auditPolicyFile) : undefined;
  if (parsed?.warning) logger.warn(`Audit policy contains errors, falling back to lenient decoding: ${parsed.warning}`);
  if (s.auditLogPath === '') return { auditor: undefined, close: async () => undefined };

  let writer: LineWriter;
  if (s.auditLogPath === '-') {
    writer = stdoutWriter();
  } else {
    const file = new RotatingFile({
      filename: s.auditLogPath,
      maxSizeBytes: s.auditLogMaxsize * MEGABYTE,
      maxBackups: s.auditLogMaxbackup,
      maxAgeDays: s.auditLogMaxage,
      compress: s.auditLogCompress,
      onError: (err) => logger.error({ err }, 'audit log: pruning or compressing old files failed'),
    });
    try {
      file.ensure();
    } catch (err) {
      throw new StartupError(`ensureLogFile: ${(err as Error).message}`);
    }
    writer = fileWriter(file);
  }
  if (!parsed) {
    logger.info('No audit policy file provided, no events will be recorded for log backend');
    return { auditor: undefined, close: async () => writer.close() };
  }
  const mode = s.auditLogMode as AuditMode;
  const sink = mode === 'batch' ? batchSink(writer, logger, s.auditLogBatchBufferSize) : blockingSink(writer, logger);
  const auditor = new Auditor({ checker: new PolicyChecker(parsed.policy), sink, format: s.auditLogFormat as AuditFormat, strict: mode === 'blocking-strict', logger });
  logger.info({ path: s.auditLogPath, mode, format: s.auditLogFormat, rules: parsed.policy.rules.length }, 'audit log enabled');
  return { auditor, close: () => auditor.close() };
}
