// What a run's result says where, each thing once: a failure several checks share above them (not under each),
// a check's own words without a pattern an earlier check said, and a summary line that repeats nothing below it.
import { formatMs } from "./dom.js";

/**
 * The failures several checks share (a later check's `same_as` names the first that failed the same way), in the
 * order of their first checks: each with every check of it and what to say once, a public check's message (which
 * can show a traceback) rather than a hidden one's.
 * @param {any[]} tests the checks finished so far, by index (some may be missing)
 * @returns {{id: string, message: string | null, location: any, checks: any[]}[]}
 */
export function sharedFailures(tests) {
  const finished = tests.filter(Boolean);
  const byId = new Map(finished.map((test) => [test.id, test]));
  /** @type {Map<string, {id: string, message: string | null, location: any, checks: any[]}>} */
  const groups = new Map();
  for (const test of finished) {
    const first = test.same_as ? byId.get(test.same_as) : undefined;
    if (!first) continue;
    if (!groups.has(first.id)) groups.set(first.id, { id: first.id, message: first.message, location: first.location, checks: [first] });
    groups.get(first.id)?.checks.push(test);
  }
  for (const group of groups.values()) group.message = group.checks.find((test) => test.public && test.message)?.message ?? group.message;
  return [...groups.values()].sort((a, b) => finished.indexOf(a.checks[0]) - finished.indexOf(b.checks[0]));
}

/**
 * What a check's row says: its message, without the symptom's sentence (its last line) when an earlier check of
 * the run ended with the same one: a pattern of wrong answers is said once, under the first check that shows it.
 * @param {any} check @param {any[]} earlier the run's checks before it
 */
export function ownMessage(check, earlier) {
  const message = check.message ?? "";
  const cut = message.lastIndexOf("\n");
  if (!check.symptom || cut < 0) return message;
  const sentence = message.slice(cut);
  const said = earlier.some((other) => other?.symptom === check.symptom && (other.message ?? "").endsWith(sentence));
  return said ? message.slice(0, cut) : message;
}

/**
 * The line under the status: the run's summary, its points and how long it took. Not a message shown in full below
 * it (a syntax error's drawing stays whole there), not the likely mistake (said once, above the checks), and no
 * time for a run that never ran (one stopped while it waited).
 */
export function summaryOf(result) {
  const shownBelow = result.status === "error" && !result.tests?.length;
  let message = shownBelow ? "" : (result.message ?? "");
  // Results stored before the summary left the mistake to the result's own field still carry it.
  if (result.mistake?.mistake) message = message.replace(` Most likely mistake: ${result.mistake.mistake}`, "");
  const parts = message ? [message] : [];
  if (result.max_points) parts.push(`${formatPoints(result.points)} / ${formatPoints(result.max_points)} points`);
  if (result.duration_ms > 0) parts.push(`total ${formatMs(result.duration_ms)}`);
  return parts.join(" · ");
}

function formatPoints(points) {
  return Number.isInteger(points) ? String(points) : points.toFixed(1);
}
