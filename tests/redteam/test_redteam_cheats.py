"""Cheats that try to change the verdict: exiting, fake reports, lying values, monkeypatching, peeking."""

from __future__ import annotations

import pytest
from redteam_harness import GradeHostile, Secrets, grade_hostile

from grader.exercise import Exercise
from grader.results.records import Reason, Status

pytestmark = pytest.mark.redteam


def _every_check_failed(graded_tests: list) -> bool:
    return bool(graded_tests) and all(t.status is not Status.PASS for t in graded_tests)


def test_sys_exit_zero_at_import_is_reported_as_exiting(hostile: GradeHostile) -> None:
    graded = hostile("exit_zero_at_import")
    assert graded.result.status is Status.ERROR, graded.explain()
    assert graded.result.reason is Reason.EXITED
    assert "sys.exit(0)" in graded.result.message and "line 4" in graded.result.message


def test_os_exit_zero_at_import_is_reported_as_exiting(hostile: GradeHostile) -> None:
    graded = hostile("os_exit_zero_at_import")
    assert graded.result.status is Status.ERROR, graded.explain()
    assert graded.result.reason is Reason.EXITED
    assert "exit code 0" in graded.result.message


def test_sys_exit_zero_inside_a_call_fails_every_check_though_the_answer_was_computed(hostile: GradeHostile) -> None:
    graded = hostile("exit_zero_in_call")
    assert graded.result.status is Status.FAIL, graded.explain()
    assert _every_check_failed(graded.result.tests)
    assert {t.reason for t in graded.result.tests} == {Reason.EXITED}
    assert "called sys.exit(0)" in graded.messages()
    assert graded.result.points == 0


def test_os_exit_zero_inside_a_call_fails_the_check(hostile: GradeHostile) -> None:
    graded = hostile("os_exit_zero_in_call")
    assert graded.result.status is not Status.PASS, graded.explain()
    assert _every_check_failed(graded.result.tests)
    first = graded.result.tests[0]
    assert first.reason is Reason.EXITED and "exit code 0" in (first.message or "")
    # Each check starts a fresh runner; restarting a dozen times may use up the 2 s budget.
    assert {t.reason for t in graded.result.tests} <= {Reason.EXITED, Reason.TIMEOUT, Reason.NOT_RUN}
    assert graded.result.points == 0


def test_fake_pass_reports_on_stdout_and_stderr_do_not_change_the_verdict(hostile: GradeHostile) -> None:
    graded = hostile("fake_report_stdout")
    assert graded.result.status is Status.FAIL, graded.explain()
    assert graded.result.reason is Reason.WRONG_ANSWER
    # The fake report was printed and captured, and shown only as output: the verdict is the grader's own.
    assert "12 passed, 0 failed" in graded.output and '"status": "pass"' in graded.output
    assert graded.result.message is not None and graded.result.message.endswith("checks did not pass.")
    assert all("passed" not in (t.message or "") for t in graded.result.failing())


def test_forged_frames_and_reports_on_fds_3_to_10_do_not_change_the_verdict(hostile: GradeHostile) -> None:
    graded = hostile("forged_fds")
    assert graded.result.status is not Status.PASS, graded.explain()
    # The forged frame carries 4294967296, the right answer to the first kv_cache_bytes example; a
    # frame forged next to the real reply is refused as unreadable, or desynchronises nothing useful.
    assert graded.result.reason in {Reason.UNSUPPORTED_VALUE, Reason.WRONG_ANSWER}, graded.explain()
    if graded.result.tests:
        for check_id in ("worked_example", "cache_bytes_examples", "cache_bytes_exact"):
            assert next(t for t in graded.result.tests if t.id == check_id).status is not Status.PASS
    else:
        assert "could not be read" in (graded.result.message or "")


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("lying_eq", "a value of type Liar cannot be sent"),
        ("ndarray_subclass", "an ndarray subclass (Agreeable) cannot be sent"),
        ("object_dtype", "arrays of dtype object cannot be sent"),
    ],
)
def test_objects_that_lie_or_would_unpickle_are_refused_at_the_boundary(
    hostile: GradeHostile, name: str, detail: str
) -> None:
    graded = hostile(name)
    assert graded.result.status is Status.FAIL, graded.explain()
    assert graded.result.reason is Reason.UNSUPPORTED_VALUE
    assert _every_check_failed(graded.result.tests)
    assert {t.reason for t in graded.result.tests} == {Reason.UNSUPPORTED_VALUE}
    assert detail in graded.messages()


def test_a_pickle_is_refused_and_pickled_bytes_arrive_as_bytes_never_unpickled(hostile: GradeHostile) -> None:
    graded = hostile("pickle_payload")
    assert graded.result.status is Status.FAIL, graded.explain()
    assert _every_check_failed(graded.result.tests)
    by_id = {t.id: t for t in graded.result.tests}
    assert by_id["worked_example"].reason is Reason.UNSUPPORTED_VALUE  # the object itself cannot cross
    assert "a value of type Payload cannot be sent" in graded.messages()
    # pickle.dumps(...) is bytes, which cross as bytes: a wrong answer, read as data and never unpickled.
    bytes_check = by_id["cache_bytes_examples"]
    assert bytes_check.reason is Reason.WRONG_ANSWER and "should be an integer" in (bytes_check.message or "")
    # (The payload's __reduce__ would have touched /tmp/<canary>-pickle on the host: the harness
    # checked that no such file exists.)


@pytest.mark.parametrize(
    ("name", "shape_message"),
    [
        ("scalar_broadcast", "should be a numpy array of shape (2,), got a numpy float64 scalar"),
        ("one_element_broadcast", "should have shape (2,), got shape (1,)"),
    ],
)
def test_values_that_would_broadcast_fail_on_their_shape(hostile: GradeHostile, name: str, shape_message: str) -> None:
    graded = hostile(name)
    assert graded.result.status is Status.FAIL, graded.explain()
    assert graded.result.reason is Reason.WRONG_ANSWER
    worked = next(t for t in graded.result.tests if t.id == "worked_example")
    assert worked.status is Status.FAIL and shape_message in (worked.message or "")
    bytes_check = next(t for t in graded.result.tests if t.id == "cache_bytes_examples")
    assert bytes_check.status is Status.FAIL and "should be an integer" in (bytes_check.message or "")


def test_monkeypatching_numpy_math_sys_modules_and_import_hooks_changes_nothing(hostile: GradeHostile) -> None:
    graded = hostile("monkeypatch_numpy")
    assert graded.result.status is Status.FAIL, graded.explain()
    assert graded.result.reason is Reason.WRONG_ANSWER
    worked = next(t for t in graded.result.tests if t.id == "worked_example")
    assert "expected 1, got 0" in (worked.message or "")
    assert "import hook saw" not in graded.output  # the grader's modules never load in the sandbox


def test_monkeypatching_builtins_only_breaks_the_students_own_process(hostile: GradeHostile) -> None:
    graded = hostile("monkeypatch_builtins")
    assert graded.result.status is not Status.PASS, graded.explain()
    assert graded.result.points == 0
    assert graded.result.reason in {Reason.EXITED, Reason.RAISED, Reason.IMPORT_ERROR, Reason.WRONG_ANSWER}


def test_frame_peeking_and_gc_scanning_find_no_expected_values(hostile: GradeHostile) -> None:
    graded = hostile("frame_peeking")
    assert graded.result.status is Status.FAIL, graded.explain()
    assert graded.result.reason is Reason.WRONG_ANSWER
    assert "suspicious names:" in graded.output
    for name in ("expected", "causal_attention", "want", "reference", "checks"):
        assert f"'{name}'" not in graded.output, f"the runner holds something named {name!r}"


def test_reading_checks_reference_secrets_proc_and_environment_finds_nothing(
    roomy_exercise: Exercise, host_secrets: Secrets
) -> None:
    # Walking every visible folder takes 1-2 s on an idle machine: the 2 s limit would make this a test of speed.
    graded = grade_hostile("read_host_files", roomy_exercise, host_secrets)
    # A correct solution: the attack is contained, so the verdict is simply the solution's.
    assert graded.result.status is Status.PASS, graded.explain()
    report = graded.output
    for target in (
        "checks.py",
        "reference.py",
        "grader/grading/engine.py",
        "secret.txt",
        "/etc/shadow",
        "/proc/1/environ",
        "/var/lib/postgresql",
    ):
        lines = [line for line in report.splitlines() if line.startswith("read ") and target in line]
        assert lines and all("denied" in line for line in lines), f"{target}: {lines}"
    assert "search for checks.py, reference.py, exercise.toml: denied" in report
    assert "MLKATA_SECRET_KEY: denied (KeyError)" in report
    assert "Hidden checks for" not in report and "def causal_attention" not in report
    cmdlines = [line for line in report.splitlines() if line.startswith("read /proc/") and "cmdline" in line]
    assert cmdlines and not any("pytest" in line or "grader" in line for line in cmdlines)


def test_keeping_state_in_globals_is_caught_by_reused_caches(hostile: GradeHostile) -> None:
    graded = hostile("global_state")
    assert graded.result.status is Status.FAIL, graded.explain()
    reused = next(t for t in graded.result.tests if t.id == "caches_out_of_order")
    assert reused.status is Status.FAIL and reused.reason is Reason.WRONG_ANSWER
