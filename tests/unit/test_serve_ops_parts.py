"""The parts of serve's operations that need no server: audit lines, masking, worker plans."""

from __future__ import annotations

import json
from pathlib import Path

from tooldeck._identity import AuthIdentity
from tooldeck.mcp._http import AuthOptions, HttpOptions, WorkerPlan
from tooldeck.mcp._http.audit import MASK, audit_line, mask_arguments
from tooldeck.mcp._serving import CallRecord


def record(**changes: object) -> CallRecord:
    fields: dict[str, object] = {
        "tool": "echo",
        "requested": "echo",
        "outcome": "ok",
        "duration": 0.0125,
        "request_id": 7,
        "session_id": "abc",
        "identity": None,
        "client": "127.0.0.1:5000",
        "arguments": {"text": "hi", "password": "pw"},
    }
    fields.update(changes)
    return CallRecord(**fields)  # type: ignore[arg-type]


def hide(text: str) -> str:
    return text.replace("SECRET", "***")


def test_an_audit_line_is_one_line_of_json_with_the_caller():
    line = audit_line(
        record(identity=AuthIdentity(subject="alice", client_id="bot")), hide, arguments=False
    )
    assert line.endswith("\n")
    assert line.count("\n") == 1
    entry = json.loads(line)
    assert entry["subject"] == "alice"
    assert entry["client_id"] == "bot"
    assert entry["duration_ms"] == 12.5
    assert "arguments" not in entry


def test_client_text_cannot_break_the_line():
    name = 'x\n{"forged": 1}\r\u2028\u2029\x00'
    line = audit_line(record(tool=None, requested=name, request_id=name), hide)
    assert line.count("\n") == 1
    assert line.isascii()
    entry = json.loads(line)
    assert entry["tool"] == name
    assert entry["request_id"] == name


def test_long_client_text_is_cut():
    entry = json.loads(audit_line(record(tool=None, requested="n" * 10_000), hide))
    assert len(entry["tool"]) < 300


def test_arguments_are_masked_by_name_and_by_secret_value():
    arguments = {
        "text": "a SECRET inside",
        "Api-Key": "k",
        "nested": {"refresh_token": "t", "list": [{"Authorization": "Bearer x"}, "SECRET"]},
        "count": 3,
    }
    assert mask_arguments(arguments, hide) == {
        "text": "a *** inside",
        "Api-Key": MASK,
        "nested": {"refresh_token": MASK, "list": [{"Authorization": MASK}, "***"]},
        "count": 3,
    }
    entry = json.loads(audit_line(record(arguments=arguments), hide, arguments=True))
    assert entry["arguments"]["Api-Key"] == MASK


def test_a_worker_plan_survives_json():
    options = HttpOptions(
        host="0.0.0.0",  # not bound: only encoded
        stateless=True,
        workers=3,
        allowed_hosts=("tools.example.com",),
        auth=AuthOptions(mode="bearer", tokens_file=Path("/etc/tokens.yaml")),
        audit_log="-",
        metrics=False,
    )
    plan = WorkerPlan(manifests=("/app/manifests",), allow_handlers=("app",), options=options)
    assert WorkerPlan.from_json(plan.to_json()) == plan
