"""After a run: what the database and the API say of every submission, against what learners saw."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg

from loadtest.learners import Observed

FINAL = frozenset({"pass", "fail", "error"})


def percentile(values: list[float], fraction: float) -> float | None:
    """The ``fraction`` quantile (nearest rank), or None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


@dataclass
class Audit:
    """Counts that must be zero, and the figures worth reporting."""

    sent: int = 0
    accepted: int = 0
    lost: list[str] = field(default_factory=list)  # accepted, but never final (in the DB, the API or the stream)
    duplicated: list[str] = field(default_factory=list)  # more than one done event or result
    mismatched: list[str] = field(default_factory=list)  # the API, the DB and the stream disagree
    orphans: list[str] = field(default_factory=list)  # rows no learner was told of (a POST reply was lost)
    client_errors: list[str] = field(default_factory=list)
    wrong_verdicts: list[str] = field(default_factory=list)  # e.g. an honest solution that did not pass
    breaches: list[str] = field(default_factory=list)  # something outside the sandbox was harmed
    statuses: dict[str, Counter[str]] = field(default_factory=dict)  # kind -> status -> count
    reasons: Counter[str] = field(default_factory=Counter)
    wall_seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    server_latencies: list[float] = field(default_factory=list)
    attempts_over_one: int = 0
    post_retries: int = 0
    ambiguous_posts: int = 0
    reconnects: int = 0
    page_failures: int = 0
    pages: dict[str, list[float]] = field(default_factory=dict)  # "path" or "path under fork bomb" -> seconds

    @property
    def ok(self) -> bool:
        """Nothing lost, duplicated, disagreeing or broken out of the sandbox; everything accepted."""
        return not (self.lost or self.duplicated or self.mismatched or self.client_errors or self.breaches) and (
            self.accepted == self.sent
        )

    @property
    def throughput(self) -> float:
        return self.accepted / self.wall_seconds if self.wall_seconds else 0.0


def audit(
    observed: Observed, api_views: dict[str, dict[str, Any]], libpq_url: str, started: float, finished: float
) -> Audit:
    """Check every submission three ways: the learner's event stream, the API and the database."""
    result = Audit(sent=len(observed.outcomes), wall_seconds=finished - started)
    accepted = {o.submission_id: o for o in observed.outcomes if o.submission_id is not None}
    result.accepted = len(accepted)
    rows, done_events, duplicate_seqs = _database(libpq_url)
    for outcome in observed.outcomes:
        result.post_retries += outcome.post_retries
        result.ambiguous_posts += outcome.ambiguous_posts
        result.reconnects += outcome.reconnects
        if outcome.error:
            result.client_errors.append(f"#{outcome.index} {outcome.solution.name}: {outcome.error}")
    for submission_id, outcome in accepted.items():
        row = rows.get(submission_id)
        view = api_views.get(submission_id, {})
        db_status = row["status"] if row else None
        final_everywhere = db_status in FINAL and view.get("status") in FINAL and outcome.status in FINAL
        if not final_everywhere or row is None or row["result"] is None or view.get("result") is None:
            result.lost.append(submission_id)
            continue
        if done_events.get(submission_id, 0) != 1 or outcome.event_types.count("done") != 1:
            result.duplicated.append(submission_id)
        if not (db_status == view["status"] == outcome.status == row["result"].get("status")):
            result.mismatched.append(submission_id)
        kind = outcome.solution.kind
        result.statuses.setdefault(kind, Counter())[db_status] += 1
        result.reasons[f"{kind}: {row['result'].get('reason') or db_status}"] += 1
        if not outcome.solution.acceptable(db_status):
            result.wrong_verdicts.append(f"{outcome.solution.name} -> {db_status} ({row['result'].get('reason')})")
        if (row.get("attempts") or 0) > 1:
            result.attempts_over_one += 1
        if outcome.latency is not None:
            result.latencies.append(outcome.latency)
        if row["created_at"] and row["finished_at"]:
            result.server_latencies.append((row["finished_at"] - row["created_at"]).total_seconds())
    result.duplicated += [f"{sid} (event seq {seq} twice)" for sid, seq in duplicate_seqs]
    result.orphans = sorted(set(rows) - set(accepted))
    result.page_failures = observed.page_failures
    for sample in observed.pages:
        if sample.status != 200:
            result.page_failures += 1
            continue
        result.pages.setdefault(sample.path, []).append(sample.seconds)
        if sample.during_fork_bomb:
            result.pages.setdefault(f"{sample.path} (fork bomb grading)", []).append(sample.seconds)
    return result


def _database(libpq_url: str) -> tuple[dict[str, dict[str, Any]], dict[str, int], list[tuple[str, int]]]:
    with psycopg.connect(libpq_url, autocommit=True) as conn:
        columns = {
            name
            for (name,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'submissions'"
            )
        }
        attempts = "attempts" if "attempts" in columns else "NULL"
        cursor = conn.execute(
            f"SELECT id, status, result, created_at, finished_at, {attempts} FROM submissions"  # noqa: S608
        )
        rows: dict[str, dict[str, Any]] = {}
        for sid, status, res, created, finished, tries in cursor:
            rows[sid] = {
                "status": status,
                "result": res,
                "created_at": created,
                "finished_at": finished,
                "attempts": tries,
            }
        done = dict(
            conn.execute(
                "SELECT submission_id, count(*) FROM submission_events WHERE type = 'done' GROUP BY submission_id"
            ).fetchall()
        )
        duplicate_seqs = conn.execute(
            "SELECT submission_id, seq FROM submission_events GROUP BY submission_id, seq HAVING count(*) > 1"
        ).fetchall()
    return rows, done, duplicate_seqs


def table(title: str, audit_: Audit, faults: list[str]) -> str:
    """The summary as a plain-text table."""

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value * 1000:,.0f} ms"

    lines: list[tuple[str, str]] = [
        ("submissions sent / accepted", f"{audit_.sent} / {audit_.accepted}"),
        ("final (pass/fail/error)", f"{audit_.accepted - len(audit_.lost)}"),
        ("LOST", str(len(audit_.lost))),
        ("DUPLICATED", str(len(audit_.duplicated))),
        ("disagreeing (stream/API/DB)", str(len(audit_.mismatched))),
        ("client errors", str(len(audit_.client_errors))),
        ("rows no learner was told of", f"{len(audit_.orphans)} (POST replies lost: {audit_.ambiguous_posts})"),
        ("graded more than once (attempts > 1)", str(audit_.attempts_over_one)),
        ("wall time", f"{audit_.wall_seconds:.1f} s"),
        ("throughput", f"{audit_.throughput:.1f} submissions/s"),
        ("end-to-end p50 / p95 / max", " / ".join(ms(percentile(audit_.latencies, q)) for q in (0.5, 0.95, 1.0))),
        (
            "server created→finished p50 / p95",
            " / ".join(ms(percentile(audit_.server_latencies, q)) for q in (0.5, 0.95)),
        ),
    ]
    for path, samples in sorted(audit_.pages.items()):
        lines.append(
            (
                f"GET {path} p50 / p95 (n)",
                f"{ms(percentile(samples, 0.5))} / {ms(percentile(samples, 0.95))} ({len(samples)})",
            )
        )
    lines.append(("page loads failed", str(audit_.page_failures)))
    lines.append(("POST retries (429/503) / stream reconnects", f"{audit_.post_retries} / {audit_.reconnects}"))
    for kind, counts in sorted(audit_.statuses.items()):
        lines.append((f"verdicts: {kind}", ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))))
    lines.append(("unexpected verdicts", str(len(audit_.wrong_verdicts))))
    lines.append(("containment breaches", str(len(audit_.breaches))))
    for fault in faults:
        lines.append(("fault", fault))
    width = max(len(label) for label, _ in lines)
    rule = "─" * (width + 40)
    out = [rule, title, rule]
    out += [f"{label:<{width}}  {value}" for label, value in lines]
    for name, items in (
        ("lost", audit_.lost),
        ("duplicated", audit_.duplicated),
        ("disagreeing", audit_.mismatched),
        ("client errors", audit_.client_errors),
        ("containment breaches", audit_.breaches),
        ("unexpected verdicts", sorted(Counter(audit_.wrong_verdicts).items())),
    ):
        if items:
            out.append(f"{name}: {items[:10]}{' …' if len(items) > 10 else ''}")
    out.append(rule)
    out.append("RESULT: " + ("OK — none lost, none duplicated, all final" if audit_.ok else "FAILED"))
    return "\n".join(out)
