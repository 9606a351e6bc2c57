/** Texts of selector errors, as the real server words them. */

/** One field error line: `path: Invalid value: "v": detail`. */
export function invalidValueText(path: string, shownValue: string, detail: string): string {
  return `${path}: Invalid value: ${shownValue}: ${detail}`;
}

/** Joins several errors the way an aggregate prints them: one alone, several as `[a, b]` without repeats. */
export function aggregateText(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
