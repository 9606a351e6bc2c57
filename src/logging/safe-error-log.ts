import pino, { type Logger } from 'pino';

/**
 * Errors in the log without request content. PostgreSQL's errors carry text from the statement and its
 * data: `where` quotes the JSON around a bad value (Secret data included), `detail` the key or row that
 * failed, `hint` and `internalQuery` parts of a query, and some messages the refused value itself
 * (`value "…" is out of range`). Every `err` the server logs goes through this serializer, which keeps
 * what identifies the failure (message shape, SQLSTATE, constraint, table, stack) and drops the rest.
 */

/** Fields of pg's DatabaseError that can quote statement text or data. */
const CONTENT_FIELDS = ['where', 'detail', 'hint', 'internalQuery', 'internalPosition', 'position', 'parameters'] as const;

const WITHHELD = '"…"';

type Serialized = Record<string, unknown>;

function isDatabaseError(e: Serialized): boolean {
  return typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}

/** A database message with its quoted values withheld: `value "…" is out of range for type bigint`. */
function withoutQuotedValues(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"/g, WITHHELD);
}

function redact(e: Serialized, depth: number): Serialized {
  if (depth > 8) return e;
  const database = isDatabaseError(e);
  for (const field of CONTENT_FIELDS) delete e[field];
  if (database) {
    if (typeof e.message === 'string') e.message = withoutQuotedValues(e.message);
    if (typeof e.stack === 'string') {
      // The stack's first line repeats the message.
      const nl = e.stack.indexOf('\n');
      e.stack = nl < 0 ? withoutQuotedValues(e.stack) : withoutQuotedValues(e.stack.slice(0, nl)) + e.stack.slice(nl);
    }
  }
  for (const [key, value] of Object.entries(e)) {
    if (key === 'stack' || value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      e[key] = value.map((v) => (v !== null && typeof v === 'object' ? redact({ ...(v as Serialized) }, depth + 1) : v));
    } else {
      e[key] = redact({ ...(value as Serialized) }, depth + 1);
    }
  }
  return e;
}

/** pino's error serializer, then the redaction above (also on causes and aggregated errors). */
export function serializeErrorSafely(err: unknown): unknown {
  if (err === null || typeof err !== 'object') return err;
  const serialized = pino.stdSerializers.err(err as Error) as unknown as Serialized;
  return redact({ ...serialized }, 0);
}

/** A logger whose `err` fields never carry request content. */
export function withSafeErrorLogs(logger: Logger): Logger {
  return logger.child({}, { serializers: { err: serializeErrorSafely } });
}
