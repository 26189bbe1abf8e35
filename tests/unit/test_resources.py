"""Resources in the registry: declared in code, found by URI, read (confined, bounded, checked)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tooldeck import (
    Param,
    RegistrationError,
    ResourceContents,
    ResourceError,
    ResourceSpec,
    ToolContext,
    ToolFailed,
    ToolRegistry,
)
from tooldeck._resourceread import MAX_RESOURCE_BYTES
from tooldeck._uritemplate import MAX_URI_LENGTH, UriTemplate, UriTemplateError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# Orders\n", encoding="utf-8")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    return tmp_path


@pytest.fixture
def registry(project: Path) -> ToolRegistry:
    return ToolRegistry(project_dir=project)


def get_order(order_id: int) -> dict[str, object]:
    """One order as JSON."""
    if order_id == 404:
        raise ToolFailed(f"no order {order_id}", kind="not_found")
    return {"id": order_id, "status": "shipped"}


def two_params(order_id: str, verbose: bool) -> str:
    return order_id


# ------------------------------------------------------------------ templates


def test_a_template_matches_one_segment_and_decodes_it():
    template = UriTemplate("orders://{order_id}/items/{item}")
    assert template.variables == ("order_id", "item")
    assert template.match("orders://O-1/items/a%20b") == {"order_id": "O-1", "item": "a b"}
    assert template.match("orders://O-1/items/a/b") is None  # {item} is one segment
    assert template.match("orders://O-1/items/") is None  # and never empty
    assert template.match("orders://O-1/items/%ff") is None  # not UTF-8: not a name of ours
    assert template.expand({"order_id": "a/b", "item": "x"}) == "orders://a%2Fb/items/x"


def test_a_reserved_variable_spans_slashes():
    assert UriTemplate("docs://{+path}").match("docs://guides/a.md") == {"path": "guides/a.md"}


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("orders/{id}", "no scheme"),
        ("orders://{?q}", "not supported"),
        ("orders://{a,b}", "not supported"),
        ("orders://{id*}", "not supported"),
        ("orders://{a}{b}", "side by side"),
        ("orders://{a}/{a}", "twice"),
        ("orders://{a", "unmatched brace"),
        ("orders://plain", "no {variable}"),
        ("orders://{a} b", "spaces"),
    ],
)
def test_templates_outside_the_two_forms_are_refused_with_the_reason(template, words):
    with pytest.raises(UriTemplateError, match=words):
        UriTemplate(template)


def test_matching_untrusted_uris_is_linear_and_bounded():
    template = UriTemplate("a://{+x}/{+y}/{+z}/end")
    # Backtracking engines take cubic time here; RE2 does not, and the length is capped.
    assert template.match("a://" + "/" * 8000 + "x") is None
    assert template.match("a://" + "b/" * (MAX_URI_LENGTH // 2) + "c/d/end") is None
    assert template.match("a://\ud800/b/c/end") in (None, {"x": "\ud800", "y": "b", "z": "c"})


# ------------------------------------------------------------------- declaring


def test_add_resource_declares_fixed_resources_and_templates(registry: ToolRegistry):
    readme = registry.add_resource("docs://readme", file="README.md", description="The README.")
    order = registry.add_resource("orders://{order_id}", get_order, mime_type="application/json")
    assert registry.resources() == (readme,)
    assert registry.resource_templates() == (order,)
    assert order.params[0].name == "order_id"  # inferred from the handler's signature
    assert (order.name, order.description) == ("get_order", "One order as JSON.")
    assert (readme.name, readme.file, readme.handler) == ("readme", "README.md", None)
    assert registry.get_resource("orders://{order_id}") is order
    assert registry.find_resource("orders://7") == (order, {"order_id": "7"})
    assert registry.find_resource("docs://readme") == (readme, {})
    assert registry.find_resource("docs://other") is None


def test_the_decorator_registers_and_returns_the_handler(registry: ToolRegistry):
    @registry.resource("config://{section}", mime_type="text/plain", title="Settings")
    def settings(section: str) -> str:
        """One section of the settings."""
        return f"[{section}]"

    assert settings("a") == "[a]"
    (spec,) = registry.resource_templates()
    assert (spec.name, spec.title) == ("settings", "Settings")


@pytest.mark.parametrize(
    ("kwargs", "path", "words"),
    [
        ({"uri": "orders://{id}", "handler": get_order}, ("uri_template",), "no parameter 'id'"),
        ({"uri": "orders://{order_id}", "handler": two_params}, ("params", 1), "not a variable"),
        ({"uri": "docs://a", "file": "../secrets"}, ("file",), "outside the project"),
        ({"uri": "docs://a", "file": "/etc/passwd"}, ("file",), "outside the project"),
        ({"uri": "not a uri", "file": "README.md"}, ("uri",), "not an absolute URI"),
        ({"uri": "docs://a", "file": "a", "mime_type": "markdown"}, ("mime_type",), "media type"),
        ({"uri": "orders://{+p}", "handler": lambda: 1}, ("uri_template",), "no parameter 'p'"),
        ({"uri": "docs://a"}, (), "a handler or a file"),
    ],
)
def test_declaration_mistakes_are_td121_and_located(registry, kwargs, path, words):
    with pytest.raises(RegistrationError, match=words) as raised:
        registry.add_resource(**kwargs)
    if path:
        assert (raised.value.code, raised.value.path) == ("TD121", path)
    assert registry.resources() == registry.resource_templates() == ()


def test_a_spec_with_both_handler_and_file_is_refused():
    with pytest.raises(RegistrationError, match="exactly one of handler and file"):
        ToolRegistry().add(ResourceSpec(name="a", uri="d://a", file="a", handler=get_order))
    with pytest.raises(RegistrationError, match="exactly one of uri and uri_template"):
        ToolRegistry().add(ResourceSpec(name="a", file="a"))


def test_one_uri_is_one_entry_under_the_duplicate_policy(registry: ToolRegistry):
    registry.add_resource("docs://readme", file="README.md")
    with pytest.raises(RegistrationError, match="resource 'docs://readme' is already registered"):
        registry.add_resource("docs://readme", lambda: "other", name="other")
    registry.add_resource("docs://readme", lambda: "other", name="other", on_duplicate="replace")
    assert registry.read_resource("docs://readme")[0].text == "other"


def test_changes_say_the_resource_list_changed(registry: ToolRegistry):
    changes = []
    registry.subscribe(lambda group, change: changes.append(change))
    registry.add_resource("docs://readme", file="README.md")
    assert registry.remove_resource("docs://readme")
    assert not registry.remove_resource("docs://readme")
    assert [c.resources_added for c in changes] == [("docs://readme",), ()]
    assert changes[1].resources_removed == ("docs://readme",)
    assert all(c.resources_list_changed and not c.tools_changed for c in changes)


def test_a_group_replaces_its_resources_in_one_swap(registry: ToolRegistry):
    spec = ResourceSpec(name="readme", uri="docs://readme", file="README.md")
    change = registry.replace_group("manifest:a.yaml", resources=[spec])
    assert change.resources_added == ("docs://readme",)
    again = registry.replace_group("manifest:a.yaml", resources=[spec])
    assert not again  # the same declaration: nothing changed (a reload of an unedited file)
    gone = registry.replace_group("manifest:a.yaml")
    assert gone.resources_removed == ("docs://readme",)


# --------------------------------------------------------------------- reading


def test_reading_a_file_a_template_and_bytes(registry: ToolRegistry):
    registry.add_resource("docs://readme", file="README.md")
    registry.add_resource("img://logo", file="logo.png")
    registry.add_resource("orders://{order_id}", get_order)
    assert registry.read_resource("docs://readme") == (
        ResourceContents("docs://readme", "text/markdown", text="# Orders\n"),
    )
    (logo,) = registry.read_resource("img://logo")
    assert (logo.mime_type, logo.text, logo.data[:4]) == ("image/png", None, b"\x89PNG")
    (order,) = registry.read_resource("orders://42")
    assert (order.mime_type, order.text) == ("application/json", '{"id": 42, "status": "shipped"}')


def test_a_handler_may_choose_its_contents(registry: ToolRegistry):
    registry.add_resource(
        "blob://{name}",
        lambda name: ResourceContents("", "application/x-thing", data=name.encode()),
    )
    assert registry.read_resource("blob://ab") == (
        ResourceContents("blob://ab", "application/x-thing", data=b"ab"),
    )


def test_text_declared_but_not_utf8_is_passed_on_as_bytes(registry: ToolRegistry):
    registry.add_resource("raw://x", lambda: b"\xff\xfe", mime_type="text/plain")
    assert registry.read_resource("raw://x")[0].data == b"\xff\xfe"


@pytest.mark.parametrize(
    ("uri", "kind", "words"),
    [
        ("orders://x", "invalid_arguments", 'order_id: expected integer, got string "x"'),
        ("orders://404", "not_found", "no order 404"),
        ("orders://1/2", "unknown_resource", "no resource has this URI"),
        ("nothing://", "unknown_resource", "list resources"),
        ("orders://" + "9" * MAX_URI_LENGTH, "unknown_resource", "no resource"),
    ],
)
def test_failed_reads_say_why(registry: ToolRegistry, uri, kind, words):
    registry.add_resource("orders://{order_id}", get_order)
    with pytest.raises(ResourceError, match=words) as raised:
        registry.read_resource(uri)
    assert raised.value.kind == kind
    assert len(str(raised.value)) < 600  # a huge URI is not echoed back whole


def test_the_handler_gets_the_context_and_project_dir(registry: ToolRegistry, project: Path):
    seen = {}

    def whoami(name: str, context: ToolContext, project_dir: Path) -> str:
        seen.update(extra=dict(context.extra), project_dir=project_dir, tool=context.tool_name)
        return name

    registry.add_resource("who://{name}", whoami)
    assert registry.read_resource("who://a", context={"user": "u1"})[0].text == "a"
    extra = {"user": "u1", "resource_uri": "who://a"}
    assert seen == {"extra": extra, "project_dir": project, "tool": "whoami"}


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs")
def test_file_reads_are_confined_as_the_file_tools_are(registry: ToolRegistry, project: Path):
    outside = project.parent / f"{project.name}-outside.txt"
    outside.write_text("secret", encoding="utf-8")
    (project / "link").symlink_to(outside)
    os.mkfifo(project / "fifo")
    for name in ("link", "fifo", "missing.md"):
        registry.add_resource(f"docs://{name.replace('.', '-')}", file=name)
    for uri, words in [
        ("docs://link", "outside the project"),
        ("docs://fifo", "not a regular file"),  # and the read never blocks on it
        ("docs://missing-md", "does not exist"),
    ]:
        with pytest.raises(ResourceError, match=words) as raised:
            registry.read_resource(uri)
        assert raised.value.kind == "execution_error"
        assert "secret" not in str(raised.value)


def test_a_read_never_returns_more_than_the_cap(registry: ToolRegistry, project: Path):
    with (project / "big.bin").open("wb") as f:
        f.truncate(MAX_RESOURCE_BYTES + 1)
    registry.add_resource("docs://big", file="big.bin")
    registry.add_resource("gen://big", lambda: "x" * (MAX_RESOURCE_BYTES + 1))
    with pytest.raises(ResourceError, match="larger than"):
        registry.read_resource("docs://big")
    with pytest.raises(ResourceError, match="more than the") as raised:
        registry.read_resource("gen://big")
    assert raised.value.kind == "too_large"


def test_a_file_resource_needs_a_project_dir():
    registry = ToolRegistry()
    registry.add_resource("docs://readme", file="README.md")
    with pytest.raises(ResourceError, match="project directory"):
        registry.read_resource("docs://readme")


def test_secrets_are_redacted_from_what_is_read(registry: ToolRegistry):
    registry.secrets.add("hunter2-token")
    registry.add_resource("cfg://token", lambda: "token=hunter2-token")
    assert "hunter2-token" not in (registry.read_resource("cfg://token")[0].text or "")


def test_scopes_guard_reads_for_an_authenticated_caller(registry: ToolRegistry):
    from tooldeck import AuthIdentity

    registry.add_resource("hr://salaries", lambda: "...", scopes=("hr:read",))
    with pytest.raises(ResourceError, match="hr:read") as raised:
        registry.read_resource("hr://salaries", auth=AuthIdentity(subject="u", scopes=("a",)))
    assert raised.value.kind == "not_permitted"
    reader = AuthIdentity(subject="u", scopes=("hr:read",))
    assert registry.read_resource("hr://salaries", auth=reader)[0].text == "..."


def test_async_reads_run_coroutines_and_sync_handlers(registry: ToolRegistry):
    async def slow(n: int) -> str:
        await asyncio.sleep(0)
        return str(n * 2)

    registry.add_resource("double://{n}", slow, Param("n", "integer"))
    registry.add_resource("docs://readme", file="README.md")

    async def main() -> tuple[str | None, str | None]:
        (a,) = await registry.aread_resource("double://21")
        (b,) = await registry.aread_resource("docs://readme")
        return a.text, b.text

    assert asyncio.run(main()) == ("42", "# Orders\n")
    assert registry.read_resource("double://2")[0].text == "4"  # sync, from a coroutine handler


def test_a_slow_handler_times_out_with_the_registry_default(project: Path):
    import time

    registry = ToolRegistry(project_dir=project, default_timeout=0.2)
    registry.add_resource("slow://x", lambda: time.sleep(5) or "late")
    with pytest.raises(ResourceError) as raised:
        registry.read_resource("slow://x")
    assert raised.value.kind == "timeout"
    registry.close()


def test_reads_do_not_run_the_call_hooks(registry: ToolRegistry):
    calls = []
    registry.on_call(before=calls.append)
    registry.add_resource("docs://readme", file="README.md")
    registry.read_resource("docs://readme")
    assert calls == []


def test_a_handler_may_return_an_image_or_a_file(registry: ToolRegistry, project: Path):
    from tooldeck import File, Image

    registry.add_resource("img://inline", lambda: Image(b"\x89PNG\r\n\x1a\n" + bytes(8)))
    registry.add_resource("img://{name}", lambda name: File(path=name), name="by_path")
    (inline,) = registry.read_resource("img://inline")
    assert (inline.mime_type, inline.data[:4]) == ("image/png", b"\x89PNG")
    (logo,) = registry.read_resource("img://logo.png")  # read confined, as file: is
    assert (logo.mime_type, logo.data) == ("image/png", (project / "logo.png").read_bytes())
    with pytest.raises(ResourceError, match="outside the project"):
        registry.read_resource("img://..%2F..%2Fetc%2Fpasswd")


def test_a_handler_may_return_several_parts_and_the_uri_read_reaches_it(registry: ToolRegistry):
    def folder(name: str, context: ToolContext) -> list[ResourceContents]:
        asked = context.extra["resource_uri"]
        return [
            ResourceContents(f"{asked}/a.txt", "text/plain", text="a"),
            ResourceContents(f"{asked}/b.bin", data=b"\x00"),
        ]

    registry.add_resource("dir://{name}", folder)
    parts = registry.read_resource("dir://%6Eotes")  # the URI as sent, not re-encoded
    assert [(p.uri, p.text, p.data) for p in parts] == [
        ("dir://%6Eotes/a.txt", "a", None),
        ("dir://%6Eotes/b.bin", None, b"\x00"),
    ]
    registry.add_resource("json://list", lambda: [1, 2], name="numbers")
    assert registry.read_resource("json://list")[0].text == "[1, 2]"  # a list of data: one part
    big = [ResourceContents("x://", data=b"x" * (MAX_RESOURCE_BYTES // 2 + 1))] * 2
    registry.add_resource("big://parts", lambda: big, name="big")
    with pytest.raises(ResourceError, match="more than the"):
        registry.read_resource("big://parts")  # the cap is on all parts together
