"""After a run: what the database and the API say of every submission, against what learners saw."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg

from loadtest.accounts import HISTORY_LIMIT, Learner
from loadtest.learners import Observed, Outcome
from loadtest.workload import SLUG

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
    learners: int = 0
    signed_in: int = 0  # learners who signed up (and stayed signed in)
    second_devices: int = 0  # of those, learners who signed in a second client
    signup_seconds: list[float] = field(default_factory=list)
    signin_seconds: list[float] = field(default_factory=list)
    account_retries: int = 0
    account_failures: list[str] = field(default_factory=list)  # a sign-up or sign-in that did not sign in
    unseen: list[str] = field(default_factory=list)  # a learner's own ✓, history or run missing or wrong on a device
    leaks: list[str] = field(default_factory=list)  # a learner shown (or not refused) another learner's run
    misfiled: list[str] = field(default_factory=list)  # a run stored under another learner than the one who sent it
    second_device_runs: int = 0  # runs sent from a second device, after it signed in mid-run
    cross_reads: int = 0  # own runs read from the device that did not send them
    foreign_reads: int = 0  # attempts to read another learner's run

    @property
    def ok(self) -> bool:
        """Nothing lost, duplicated, disagreeing, shown to the wrong learner or broken out of the sandbox."""
        broken = self.lost or self.duplicated or self.mismatched or self.client_errors or self.breaches
        wrong_learner = self.account_failures or self.unseen or self.leaks or self.misfiled
        return not (broken or wrong_learner) and self.accepted == self.sent

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
    rows, done_events, duplicate_seqs, users, solved = _database(libpq_url)
    for outcome in observed.outcomes:
        result.post_retries += outcome.post_retries
        result.ambiguous_posts += outcome.ambiguous_posts
        result.reconnects += outcome.reconnects
        if outcome.error:
            result.client_errors.append(f"#{outcome.index} {outcome.solution.name}: {outcome.error}")
    for submission_id, outcome in accepted.items():
        row = rows.get(submission_id)
        view = api_views.get(submission_id, {})
        db_status: str = row["status"] if row else ""  # "": not final
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
    check_learners(result, observed.learners, observed.outcomes, rows, users, solved)
    return result


def check_learners(
    result: Audit,
    learners: list[Learner],
    outcomes: list[Outcome],
    rows: dict[str, dict[str, Any]],
    users: dict[str, str],
    solved: set[str],
) -> None:
    """Each learner's runs are stored as its own, each of its devices shows them and its ✓, and no one else's.

    ``rows``: every stored submission (its ``learner_id`` and ``status``); ``users``: e-mail -> the
    account's learner id; ``solved``: the learner ids with a solved mark for the exercise.
    """
    result.learners = len(learners)
    sent: dict[int, list[str]] = {}
    for outcome in outcomes:
        if outcome.submission_id is not None and outcome.submission_id in rows:
            sent.setdefault(outcome.learner, []).append(outcome.submission_id)
            result.second_device_runs += outcome.device > 0
    for learner in learners:
        label = f"learner {learner.number}" + (f" ({learner.email})" if learner.email else "")
        if learner.error:
            result.account_failures.append(f"{label}: {learner.error}")
        result.account_retries += learner.account_retries
        if learner.signup_seconds is not None:
            result.signup_seconds.append(learner.signup_seconds)
        if learner.signin_seconds is not None:
            result.signin_seconds.append(learner.signin_seconds)
        owner = _owner(result, learner, label, sent.get(learner.number, []), rows, users)
        mine = {sid for sid, row in rows.items() if owner is not None and row.get("learner_id") == owner}
        passed = any(rows[sid]["status"] == "pass" for sid in mine)
        if owner is not None and (owner in solved) != passed:
            result.unseen.append(f"{label}: {'a run passed but no' if passed else 'no run passed but a'} solved mark "
                                 "is stored")  # fmt: skip
        _check_views(result, learner, label, mine, passed, rows)


def _owner(
    result: Audit,
    learner: Learner,
    label: str,
    sent: list[str],
    rows: dict[str, dict[str, Any]],
    users: dict[str, str],
) -> str | None:
    """The learner id its runs must be stored under (None: an anonymous learner that stored none)."""
    stored = Counter(str(rows[sid].get("learner_id")) for sid in sent)
    if learner.signed_in and learner.signup_seconds is not None:
        account = users.get(str(learner.email))
        if account is None:
            result.account_failures.append(f"{label}: signed up, but no account is stored for the address")
            return None
        result.signed_in += 1
        result.second_devices += learner.signin_seconds is not None
        result.misfiled += [f"{label}: {sid} stored under another learner" for sid in sent
                            if rows[sid].get("learner_id") != account]  # fmt: skip
        return account
    if len(stored) > 1:
        result.misfiled.append(f"{label}: its runs are stored under {len(stored)} learners")
    return stored.most_common(1)[0][0] if stored else None


def _check_views(
    result: Audit, learner: Learner, label: str, mine: set[str], passed: bool, rows: dict[str, dict[str, Any]]
) -> None:
    devices = {0: "after the run"} | ({1: "after the run"} if learner.signin_seconds is not None else {})
    looked = {(seen.device, seen.moment) for seen in learner.seen}
    expected = set(devices.items()) | ({(1, "at sign-in")} if learner.signin_seconds is not None else set())
    result.unseen += [f"{label}, device {d + 1}: nothing read back {m}" for d, m in sorted(expected - looked)]
    for seen in learner.seen:
        where = f"{label}, device {seen.device + 1} {seen.moment}"
        if seen.error or seen.history is None:
            result.unseen.append(f"{where}: {seen.error or 'no history read'}")
            continue
        listed = set(seen.history)
        strangers = sorted(listed - mine)
        if strangers:
            result.leaks.append(f"{where}: its history lists {len(strangers)} runs not its own, e.g. {strangers[0]}")
        if seen.moment == "at sign-in":
            missing = sorted(set(seen.known_final) - listed)
            if "pass" in seen.known_final.values() and not seen.solved:
                result.unseen.append(f"{where}: no ✓ for {SLUG}, though a run of it had passed")
        else:
            missing = sorted(mine - listed) if len(mine) <= HISTORY_LIMIT else []
            if len(mine) > HISTORY_LIMIT and len(listed) != HISTORY_LIMIT:
                missing = [f"{HISTORY_LIMIT - len(listed)} of its newest"]
            if seen.solved != passed:
                result.unseen.append(f"{where}: {'no ✓' if passed else 'a ✓'} for {SLUG}, though "
                                     f"{'a run of it passed' if passed else 'none of its runs passed'}")  # fmt: skip
        if missing:
            result.unseen.append(f"{where}: its history lacks {len(missing)} of its runs, e.g. {missing[0]}")
        for sid, status in sorted(seen.reads.items()):
            result.cross_reads += 1
            if sid not in rows or status != rows[sid]["status"]:
                result.unseen.append(f"{where}: its run {sid} reads as {status}, not {rows.get(sid, {}).get('status')}")
        for request, code in sorted(seen.foreign.items()):
            result.foreign_reads += 1
            if code != 404:
                result.leaks.append(f"{where}: {request} (another learner's run) answered {code}, not 404")


def _database(
    libpq_url: str,
) -> tuple[dict[str, dict[str, Any]], dict[str, int], list[tuple[str, int]], dict[str, str], set[str]]:
    """Every submission; done events per submission; repeated event seqs; accounts' learners; solved marks."""
    with psycopg.connect(libpq_url, autocommit=True) as conn:
        columns = {
            name
            for (name,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'submissions'"
            )
        }
        attempts = "attempts" if "attempts" in columns else "NULL"
        cursor = conn.execute(
            f"SELECT id, status, result, created_at, finished_at, {attempts}, learner_id FROM submissions"  # noqa: S608
        )
        rows: dict[str, dict[str, Any]] = {}
        for sid, status, res, created, finished, tries, learner in cursor:
            rows[sid] = {
                "status": status,
                "result": res,
                "created_at": created,
                "finished_at": finished,
                "attempts": tries,
                "learner_id": learner,
            }
        done: dict[str, int] = dict(
            conn.execute(
                "SELECT submission_id, count(*) FROM submission_events WHERE type = 'done' GROUP BY submission_id"
            ).fetchall()
        )
        duplicate_seqs = conn.execute(
            "SELECT submission_id, seq FROM submission_events GROUP BY submission_id, seq HAVING count(*) > 1"
        ).fetchall()
        users: dict[str, str] = dict(conn.execute("SELECT email, learner_id FROM users").fetchall())
        solved = {
            learner for (learner,) in conn.execute("SELECT learner_id FROM progress WHERE exercise = %s", (SLUG,))
        }
    return rows, done, duplicate_seqs, users, solved


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
    lines += [
        ("learners signed in / with a second device", f"{audit_.signed_in} of {audit_.learners} / "
                                                       f"{audit_.second_devices}"),
        ("sign-up (POST /signup) p50 / p95 (n)", f"{ms(percentile(audit_.signup_seconds, 0.5))} / "
         f"{ms(percentile(audit_.signup_seconds, 0.95))} ({len(audit_.signup_seconds)})"),
        ("second-device sign-in (POST /signin) p50 / p95 (n)", f"{ms(percentile(audit_.signin_seconds, 0.5))} / "
         f"{ms(percentile(audit_.signin_seconds, 0.95))} ({len(audit_.signin_seconds)})"),
        ("sign-up/sign-in failures / forms sent again", f"{len(audit_.account_failures)} / {audit_.account_retries}"),
        ("runs sent from a second device / read from the other", f"{audit_.second_device_runs} / "
                                                                  f"{audit_.cross_reads}"),
        ("own ✓, history or run not shown", str(len(audit_.unseen))),
        ("other learners' runs shown (of reads tried)", f"{len(audit_.leaks)} (of {audit_.foreign_reads})"),
        ("runs stored under the wrong learner", str(len(audit_.misfiled))),
    ]  # fmt: skip
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
        ("sign-up/sign-in failures", audit_.account_failures),
        ("not shown to their learner", audit_.unseen),
        ("shown to another learner", audit_.leaks),
        ("stored under the wrong learner", audit_.misfiled),
        ("unexpected verdicts", sorted(Counter(audit_.wrong_verdicts).items())),
    ):
        if items:
            out.append(f"{name}: {items[:10]}{' …' if len(items) > 10 else ''}")
    out.append(rule)
    out.append("RESULT: " + ("OK — none lost, none duplicated, all final, each learner's own and no one else's"
                             if audit_.ok else "FAILED"))  # fmt: skip
    return "\n".join(out)
