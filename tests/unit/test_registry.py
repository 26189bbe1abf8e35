"""ToolRegistry: registration, duplicates, lookup, atomic group swaps, threads."""

import logging
import threading

import pytest

from tooldeck import (
    DuplicateToolError,
    McpServerSpec,
    Param,
    PromptSpec,
    RegistrationError,
    Severity,
    ToolRegistry,
    ToolSpec,
    WebSearchSpec,
    safe_name,
)


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def test_add_tool_returns_spec_and_defaults_name_and_description():
    registry = ToolRegistry()
    spec = registry.add_tool(None, None, echo)
    assert spec.name == "echo"
    assert spec.description == "Echo the text back."
    assert registry.get_tool("echo") == spec
    assert registry.tools() == (spec,)
    assert "echo" in registry
    assert len(registry) == 1


def test_explicit_params_win_over_inference():
    registry = ToolRegistry()
    registry.add_tool("shout", "Shout.", echo, Param("text", "string", True, "Text to shout"))
    schema = registry.input_schema("shout")
    assert schema["properties"]["text"] == {"type": "string", "description": "Text to shout"}


def test_options_become_spec_fields():
    registry = ToolRegistry()
    spec = registry.add_tool(
        "e", "E.", echo, tags=("a",), side_effects=True, return_direct=True, timeout=2.5
    )
    assert spec.tags == ("a",)
    assert spec.side_effects
    assert spec.return_direct
    assert spec.timeout == 2.5
    with pytest.raises(TypeError):
        registry.add_tool("f", "F.", echo, no_such_option=1)


def test_handler_must_be_callable():
    with pytest.raises(RegistrationError):
        ToolRegistry().add_tool("x", "X.", "not callable")  # type: ignore[arg-type]


def test_duplicate_policies(caplog):
    registry = ToolRegistry()
    registry.add_tool("t", "First.", echo)
    with pytest.raises(DuplicateToolError, match="already registered"):
        registry.add_tool("t", "Second.", echo)
    with caplog.at_level(logging.WARNING, logger="tooldeck.registry"):
        kept = registry.add_tool("t", "Second.", echo, on_duplicate="warn")
    assert kept.description == "First."
    assert "already registered" in caplog.text
    replaced = registry.add_tool("t", "Third.", echo, on_duplicate="replace")
    assert registry.get_tool("t") == replaced
    with pytest.raises(RegistrationError):
        ToolRegistry(on_duplicate="ignore")  # type: ignore[arg-type]


def test_registry_wide_duplicate_policy():
    registry = ToolRegistry(on_duplicate="replace")
    registry.add_tool("t", "First.", echo)
    registry.add_tool("t", "Second.", echo)
    assert registry.get_tool("t").description == "Second."


def test_remove_tool():
    registry = ToolRegistry()
    registry.add_tool(None, None, echo)
    assert registry.remove_tool("echo")
    assert not registry.remove_tool("echo")
    assert registry.get_tool("echo") is None
    assert registry.call("echo", {"text": "x"}).error.kind == "unknown_tool"


def test_unsafe_names_warn_and_resolve_through_safe_name():
    registry = ToolRegistry()
    registry.add_tool("files.read", "Read.", echo)
    (diagnostic,) = registry.diagnostics
    assert diagnostic.severity is Severity.WARNING
    assert diagnostic.code == "TD120"
    alias = registry.safe_name("files.read")
    assert alias == "files_read"
    assert registry.call(alias, {"text": "hi"}).text == "hi"
    assert registry.get_tool(alias).name == "files.read"
    assert registry.remove_tool(alias)


def test_safe_names_are_distinct_and_bounded():
    assert safe_name("a.b", taken={"a_b"}) != safe_name("a b", taken={"a_b"})
    long = safe_name("x" * 100)
    assert long == "x" * 64
    assert len(safe_name("x" * 100, taken={long})) == 64
    assert safe_name("ok_name-1") == "ok_name-1"


def test_a_safe_name_is_the_shortest_free_one_with_a_hash_only_on_a_clash():
    registry = ToolRegistry()
    for name in ("github.get_issue", "a.b", "a b", "files.read", "files_read"):
        registry.add_tool(name, "Read.", echo)
    assert registry.safe_name("github.get_issue") == "github_get_issue"
    clashing = {registry.safe_name(n) for n in ("a.b", "a b", "files.read")}
    assert len(clashing) == 3
    assert all(len(n) == len("a_b_") + 8 or n.startswith("files_read_") for n in clashing)
    assert registry.safe_name("files_read") == "files_read"
    for name in ("github.get_issue", "a.b", "a b", "files.read"):
        assert registry.get_tool(registry.safe_name(name)).name == name
    registry.remove_tool("files_read")
    assert registry.safe_name("files.read") == "files_read"


def test_decorator_registration():
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @registry.tool(name="mul", description="Multiply.", timeout=1.0)
    def multiply(a: int, b: int) -> int:
        return a * b

    assert add(1, 2) == 3  # the decorator returns the function unchanged
    assert registry.call("add", {"a": 2, "b": 3}).text == "5"
    assert registry.call("mul", {"a": 2, "b": 3}).text == "6"
    assert registry.get_tool("mul").timeout == 1.0


def test_add_ready_made_spec():
    registry = ToolRegistry()
    spec = ToolSpec(name="e", description="E.", handler=echo, params=(Param("text"),))
    assert registry.add(spec) is spec
    assert registry.call("e", {"text": "x"}).ok


def test_add_takes_a_ready_made_spec_of_any_kind():
    registry = ToolRegistry()
    prompt = PromptSpec(name="p", description="P.", template="Hi")
    server = McpServerSpec(name="m", url="https://example.org/mcp")
    search = WebSearchSpec()
    assert registry.add(prompt) is prompt
    assert registry.add(server) is server
    assert registry.add(search) is search
    assert (registry.get_prompt("p"), registry.mcp_servers(), registry.web_search()) == (
        prompt,
        (server,),
        search,
    )
    with pytest.raises(TypeError, match="tool, prompt, resource, MCP server or web search spec"):
        registry.add("echo")  # type: ignore[call-overload]


def test_add_mcp_server_spec_is_a_deprecated_alias_of_add():
    registry = ToolRegistry()
    server = McpServerSpec(name="m", url="https://example.org/mcp")
    with pytest.warns(DeprecationWarning, match=r"use add\(spec\)"):
        assert registry.add_mcp_server_spec(server) is server
    assert registry.mcp_servers() == (server,)


def test_replace_group_swaps_atomically_and_reports_changes():
    registry = ToolRegistry()
    registry.add_tool("code_tool", "From code.", echo)

    def spec(name, description="D."):
        return ToolSpec(name=name, description=description, handler=echo, params=(Param("text"),))

    change = registry.replace_group("m.yaml", [spec("a"), spec("b")])
    assert change.added == ("a", "b")
    assert registry.group_of("a") == "m.yaml"
    assert registry.group_of("code_tool") is None

    change = registry.replace_group("m.yaml", [spec("a", "Changed."), spec("c")])
    assert change.added == ("c",)
    assert change.removed == ("b",)
    assert change.changed == ("a",)
    assert "code_tool" in registry
    assert "b" not in registry

    # A clash with code (or another group) keeps everything as it was.
    with pytest.raises(DuplicateToolError, match="already registered by code"):
        registry.replace_group("m.yaml", [spec("a"), spec("code_tool")])
    assert registry.get_tool("a").description == "Changed."
    assert "c" in registry

    with pytest.raises(DuplicateToolError, match="declared twice"):
        registry.replace_group("n.yaml", [spec("x"), spec("x")])

    assert not registry.replace_group("m.yaml", [spec("a", "Changed."), spec("c")])
    assert registry.replace_group("m.yaml", []).removed == ("a", "c")


def test_invalid_spec_in_group_leaves_registry_untouched():
    registry = ToolRegistry()
    good = ToolSpec(name="a", description="A.", handler=echo, params=(Param("text"),))
    registry.replace_group("g", [good])
    bad = ToolSpec(name="b", description="B.", handler=echo, params=(Param("nope"),))
    with pytest.raises(RegistrationError):
        registry.replace_group("g", [good, bad])
    assert [t.name for t in registry.tools()] == ["a"]


def test_concurrent_registration_and_calls_never_see_partial_state():
    registry = ToolRegistry()
    errors: list[str] = []
    stop = threading.Event()

    def spec(name):
        return ToolSpec(name=name, description="D.", handler=echo, params=(Param("text"),))

    names = [f"t{i}" for i in range(20)]

    def writer(offset: int) -> None:
        for round_ in range(30):
            registry.replace_group(f"g{offset}", [spec(f"{n}_{offset}") for n in names])
            if round_ % 2:
                registry.replace_group(f"g{offset}", [])
            registry.add_tool(f"code_{offset}_{round_}", "C.", echo)

    def reader() -> None:
        while not stop.is_set():
            tools = {t.name for t in registry.tools()}
            for offset in range(3):
                group = {f"{n}_{offset}" for n in names}
                present = group & tools
                if present and present != group:
                    errors.append(f"partial group {offset}: {len(present)}")
            result = registry.call("code_0_0", {"text": "x"})
            if not result.ok and result.error.kind != "unknown_tool":
                errors.append(result.text)

    readers = [threading.Thread(target=reader) for _ in range(2)]
    writers = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    for thread in readers:
        thread.join()
    assert errors == []
    assert len([t for t in registry.tools() if t.name.startswith("code_")]) == 90
