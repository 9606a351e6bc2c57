/**
 * What goes wrong, in cel-go's words: evaluation errors (values the evaluator propagates and some
 * operators absorb), interruptions that nothing absorbs (the cost limit), and compile issues printed
 * as cel-go's Issues.String() prints them.
 */

/** An evaluation error: the text upstream reports after `resulted in error: `. */
export class CelEvalError extends Error {
  override readonly name = 'CelEvalError';
}

export function evalError(message: string): CelEvalError {
  return new CelEvalError(message);
}

export const NO_SUCH_OVERLOAD = 'no such overload';

export function noSuchOverload(): CelEvalError {
  return new CelEvalError(NO_SUCH_OVERLOAD);
}

/** Not an evaluation error: stops the whole evaluation (cel-go panics with EvalCancelledError). */
export class CelInterrupt extends Error {
  override readonly name = 'CelInterrupt';
}

/** cel-go's text when an evaluation costs more than its limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

export class CostLimitExceeded extends CelInterrupt {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
  }
}

/** One compile problem at an offset (UTF-16 index) of the source. */
export interface Issue {
  readonly at: number;
  readonly message: string;
}

/**
 * A failed compilation. `message` is upstream's detail: `compilation failed: ERROR: <input>:1:3: …`
 * with the source line and a caret under the position, one block per issue in source order (or a
 * `must evaluate to …` sentence when the result type is wrong).
 */
export class CelCompileError extends Error {
  override readonly name = 'CelCompileError';
  constructor(
    message: string,
    readonly issues: readonly Issue[],
  ) {
    super(message);
  }

  static of(source: string, issues: readonly Issue[]): CelCompileError {
    return new CelCompileError(`compilation failed: ${formatIssues(source, issues)}`, issues);
  }
}

/** cel-go's Issues.String(): each error with its location, sorted by position. */
export function formatIssues(source: string, issues: readonly Issue[]): string {
  const sorted = [...issues].sort((a, b) => a.at - b.at);
  return sorted.map((i) => formatIssue(source, i)).join('\n');
}

/**
 * `ERROR: <input>:line:col: message` then ` | <line>` and ` | ...^`. Columns count code points; the
 * caret line draws wide (non-ASCII) characters with full-width dots and caret as cel-go does.
 */
function formatIssue(source: string, issue: Issue): string {
  const at = Math.max(0, Math.min(issue.at, source.length));
  const lineStart = source.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = source.indexOf('\n', lineStart);
  const lineText = source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd);
  const line = countLines(source, lineStart);
  const before = [...source.slice(lineStart, at)];
  const under = [...source.slice(at)][0];
  const dots = before.map((ch) => (isWide(ch) ? '\uff0e' : '.')).join('');
  const caret = under !== undefined && under !== '\n' && isWide(under) ? '\uff3e' : '^';
  return `ERROR: <input>:${line}:${before.length + 1}: ${issue.message}\n | ${lineText.replace(/\t/g, ' ')}\n | ${dots}${caret}`;
}

function countLines(source: string, upTo: number): number {
  let n = 1;
  for (let i = 0; i < upTo; i++) if (source.charCodeAt(i) === 10) n++;
  return n;
}

function isWide(ch: string): boolean {
  return ch.length > 1 || ch.charCodeAt(0) > 0x7f;
}
