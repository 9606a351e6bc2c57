// A `node --test` reporter that prints nothing while the tests run and, at the end, lists each failed
// test with its file, its enclosing suites and the first lines of its error.
//
// Why: `npm test` under CI writes TAP, thousands of lines in which one `not ok` hides; whoever reads
// only the tail of a red run (as CI logs are read) needs the failure restated there.
const MAX_ERROR_LINES = 12;

/** One failure's error, as its first lines (an assertion's message carries expected and actual). */
function describeError(error) {
  const cause = error?.cause ?? error;
  const text = cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause);
  // Frames inside Node's own test runner say nothing about the failure.
  const lines = text.split('\n').filter((l) => !/\((node:|node:internal)|^\s*at node:/.test(l));
  return lines.slice(0, MAX_ERROR_LINES).concat(lines.length > MAX_ERROR_LINES ? ['…'] : []);
}

export default async function* failureSummary(source) {
  /** Per file, the names of the tests now open at each nesting level. */
  const open = new Map();
  const failures = [];
  for await (const event of source) {
    const { data } = event;
    if (event.type === 'test:start') {
      const stack = open.get(data.file) ?? [];
      stack.length = data.nesting;
      stack.push(data.name);
      open.set(data.file, stack);
    } else if (event.type === 'test:fail') {
      // A suite that failed only because a test inside it did says nothing the test does not.
      if (data.details?.error?.failureType === 'subtestsFailed') continue;
      const stack = open.get(data.file) ?? [];
      const path = [...stack.slice(0, data.nesting), data.name];
      failures.push({ file: data.file, line: data.line, path, error: describeError(data.details?.error) });
    }
  }
  if (failures.length === 0) return;
  let out = `\n# ${failures.length} failed:\n`;
  for (const f of failures) {
    out += `#\n# ✖ ${f.path.join(' › ')}\n#   at ${f.file ?? '(unknown file)'}${f.line ? `:${f.line}` : ''}\n`;
    for (const line of f.error) out += `#     ${line}\n`;
  }
  yield out;
}
