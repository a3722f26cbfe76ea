"""This repository's own content: pnp check --render passes (every card drawn, all text fits),
and every warning is a partial transcription. The check is the one the `bundled` fixture runs
after its build (tests/content/conftest.py), on a copy of the project files: a full check, not a
result stored by an earlier one; what the build's drawing found, it reads from the build."""

from __future__ import annotations

import json

from bundledkit import Bundled


def test_repo_content_checks_clean(bundled: Bundled) -> None:
    report = json.loads(bundled.said["check --render --format json"]["stdout"])
    assert report["errors"] == 0
    assert report["records"] > 300
    for problem in report["problems"]:
        # the only warnings allowed: component lines the seeds only partly list
        assert problem["code"] == "count-mismatch" and "(the line is marked partial)" in problem["message"], problem
