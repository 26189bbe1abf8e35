"""load_manifests: discovery, several files, activation, interpolation, registration, calls.

The handlers and application classes at the top of this module are referenced from
manifests as ``tests.unit.test_loader:<name>`` with ``allow_handlers=["tests.unit"]``.
"""

from __future__ import annotations

import gc
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from tooldeck import (
    Config,
    ManifestError,
    Param,
    Severity,
    ToolRegistry,
    from_manifests,
    load_config,
    load_manifests,
)
from tooldeck.manifest._loader import GROUP_PREFIX, discover
from tooldeck.providers import export_tools

ROOT = Path(__file__).resolve().parents[2]
FILES_MANIFEST = ROOT / "manifests" / "files.yaml"
HOSTED_PROPERTIES = ROOT / "tests" / "fixtures" / "config" / "hosted_tools.properties"
FEATURES_YAML = ROOT / "tests" / "fixtures" / "config" / "features.yaml"
MODULE = __name__
SECRET = "s3cr3t-token-4711"


# --------------------------------------------------------------- handlers for manifests
def add_order(order_id: str, quantity: int = 1, express: bool = False) -> dict[str, object]:
    """Add an order to the customer's basket and return what was added.

    Args:
        order_id: Order id in the form O-YYYYMMDD.
        quantity: How many items to order.
        express: Ship with express delivery.
    """
    return {"order_id": order_id, "quantity": quantity, "express": express}


def tag_items(items: list[str], options: dict[str, object] | None = None) -> dict[str, object]:
    """Attach tags to items and report what changed.

    Args:
        items: The item ids to tag.
        options: How to tag them: the tag name and an optional priority.
    """
    return {"items": items, "options": options or {}}


class Greeter:
    """Handlers can be static methods referenced as ``module:Class.method``."""

    @staticmethod
    def greet(name: str) -> str:
        """Greet someone by name, politely and briefly.

        Args:
            name: Who to greet, e.g. Ada.
        """
        return f"Hello, {name}!"


NOT_CALLABLE = 42


class BaseAgent:
    """An application base class for ``supported_for``."""


class SupportAgent(BaseAgent):
    """A subclass: bundles supported for BaseAgent are active for it too."""


class OtherAgent:
    """Unrelated to BaseAgent."""


class Outer:
    class Inner:
        """A nested class, named ``Outer.Inner`` in ``supported_for``."""


# ------------------------------------------------------------------------------ helpers
def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def tool_yaml(
    name: str, handler: str = "tooldeck.handlers.files:file_info", extra: str = ""
) -> str:
    """A one-tool manifest; ``extra`` lines go between ``version`` and ``tools``."""
    return (
        f"version: 1\n{extra}tools:\n  - name: {name}\n    handler: {handler}\n"
        "    description: Describe a file or directory in the project, with its size and lines.\n"
    )


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def test_this_module_is_importable_under_its_package_name() -> None:
    assert MODULE == "tests.unit.test_loader"


# ---------------------------------------------------------------------------- discovery
def test_folder_discovery_is_sorted_recursive_and_skips_hidden(tmp_path: Path) -> None:
    for name in (
        "b.yaml",
        "a.yml",
        "sub/c.yaml",
        "sub/deeper/d.yaml",
        ".hidden/e.yaml",
        "sub/.git/f.yaml",
        ".secret.yaml",
    ):
        write(tmp_path, name, "version: 1\n")
    write(tmp_path, "notes.txt", "not a manifest\n")
    write(tmp_path, "sub/data.json", "{}\n")
    expected = [
        tmp_path / "a.yml",
        tmp_path / "b.yaml",
        tmp_path / "sub" / "c.yaml",
        tmp_path / "sub" / "deeper" / "d.yaml",
    ]
    files, problems = discover([tmp_path])
    assert files == expected
    assert problems == []
    _, result = load_manifests([tmp_path], environ={})
    assert result.files == [str(p) for p in expected]
    assert result.registered == [str(p) for p in expected]
    assert result.diagnostics == []


def test_a_hidden_folder_given_explicitly_is_searched(tmp_path: Path) -> None:
    path = write(tmp_path, ".tooldeck/tools.yaml", "version: 1\n")
    assert discover([tmp_path / ".tooldeck"]) == ([path], [])


def test_missing_paths_and_empty_folders_are_td200(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    good = write(tmp_path, "good.yaml", tool_yaml("info"))
    missing = tmp_path / "missing.yaml"
    registry, result = load_manifests([missing, tmp_path / "empty", good], environ={})
    assert codes(result) == ["TD200", "TD200"]
    first, second = result.diagnostics
    assert first.location is not None
    assert first.location.file == str(missing)
    assert "no such file or directory" in first.message
    assert second.location is not None
    assert second.location.file == str(tmp_path / "empty")
    assert "no *.yaml or *.yml manifests" in second.message
    assert result.registered == [str(good)]
    assert "info" in registry
    assert not result.ok


def test_several_paths_load_in_order_without_duplicates(tmp_path: Path) -> None:
    one = write(tmp_path, "z_first.yaml", tool_yaml("first"))
    two = write(tmp_path, "dir/b.yaml", tool_yaml("second"))
    three = write(tmp_path, "dir/a.yaml", tool_yaml("third"))
    registry, result = load_manifests([one, tmp_path / "dir", two, one], environ={})
    assert result.files == [str(one), str(three), str(two)]
    assert result.registered == result.files
    assert [t.name for t in registry.tools()] == ["first", "third", "second"]
    assert registry.group_of("first") == GROUP_PREFIX + str(one)


def test_load_result_keeps_documents_and_bundles(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", tool_yaml("info"))
    _, result = load_manifests([path], environ={})
    bundle = result.bundles[str(path)]
    assert bundle.name == "m"
    assert [t.name for t in bundle.tools] == ["info"]
    assert result.documents[str(path)].data["tools"][0]["name"] == "info"
    assert bundle.tools[0].origin is not None
    assert (bundle.tools[0].origin.line, bundle.tools[0].origin.column) == (3, 5)


@pytest.mark.parametrize("enabled", [True, False])
def test_load_manifests_leaves_the_garbage_collector_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    """A library call never changes process-wide state: not even for the time of a load."""
    from tooldeck.manifest._live import LiveManifests

    path = write(tmp_path, "m.yaml", tool_yaml("info"))
    during: list[tuple[bool, tuple[int, ...]]] = []
    load = LiveManifests.load

    def spying(self: LiveManifests) -> object:
        during.append((gc.isenabled(), gc.get_threshold()))
        return load(self)

    monkeypatch.setattr(LiveManifests, "load", spying)
    was_enabled, threshold = gc.isenabled(), gc.get_threshold()
    try:
        gc.enable() if enabled else gc.disable()
        gc.set_threshold(1234, 11, 12)
        _, result = load_manifests([path], environ={})
        assert result.registered == [str(path)]
        assert during == [(enabled, (1234, 11, 12))]
        assert (gc.isenabled(), gc.get_threshold()) == (enabled, (1234, 11, 12))
    finally:
        gc.set_threshold(*threshold)
        gc.enable() if was_enabled else gc.disable()


# --------------------------------------------------------------------- several files
def test_cross_file_duplicate_tools_are_reported_at_both_places(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", tool_yaml("info"))
    second = write(
        tmp_path,
        "b.yaml",
        """
        version: 1
        tools:
          - name: listing
            handler: tooldeck.handlers.files:list_dir
            description: List files and directories in the project, sorted by path.
          - name: info
            handler: tooldeck.handlers.files:file_info
            description: Describe a file or directory of the project, a second copy.
        """,
    )
    _, result = load_manifests([first, second], environ={})
    duplicates = [d for d in result.diagnostics if d.code == "TD220"]
    places = {(d.location.file, d.location.line, d.location.column) for d in duplicates}
    assert places == {(str(first), 3, 11), (str(second), 6, 11)}
    assert all(d.severity is Severity.ERROR and d.tool_name == "info" for d in duplicates)
    by_file = {d.location.file: d.message for d in duplicates}
    assert f"{second}:6:11" in by_file[str(first)]
    assert f"{first}:3:11" in by_file[str(second)]
    assert [t.name for t in result.bundles[str(first)].tools] == ["info"]
    assert result.registered == [str(first)]  # the file repeating the name is held back


def test_cross_file_duplicate_keeps_the_first_files_tool(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", tool_yaml("info"))
    second = write(tmp_path, "b.yaml", tool_yaml("info", "tooldeck.handlers.files:read_file"))
    registry, _ = load_manifests([first, second], environ={})
    assert registry.group_of("info") == GROUP_PREFIX + str(first)
    spec = registry.get_tool("info")
    assert spec is not None
    assert spec.handler.__name__ == "file_info"


def test_cross_file_duplicate_prompts_are_reported_at_both_places(tmp_path: Path) -> None:
    text = """
    version: 1
    prompts:
      - name: summarize
        description: Summarize a topic for the reader.
        template: Summarize {topic}.
        params: [{name: topic, description: "What to summarize"}]
    """
    first, second = write(tmp_path, "a.yaml", text), write(tmp_path, "b.yaml", text)
    _, result = load_manifests([first, second], environ={})
    assert sorted((d.code, d.location.file) for d in result.diagnostics) == [
        ("TD220", str(first)),
        ("TD220", str(second)),
    ]
    assert all("prompt 'summarize'" in d.message for d in result.diagnostics)


def test_a_file_with_errors_is_not_registered_while_others_are(tmp_path: Path) -> None:
    good = write(tmp_path, "a_good.yaml", tool_yaml("info"))
    bad = write(
        tmp_path,
        "b_bad.yaml",
        """
        version: 1
        tools:
          - name: listing
            handler: tooldeck.handlers.files:list_dir
            description: List files and directories in the project, sorted by path.
          - name: broken
            handler: tooldeck.handlers.files:no_such_function
            description: This tool points at a handler that does not exist.
        """,
    )
    also_good = write(tmp_path, "c_good.yaml", tool_yaml("info_again"))
    registry, result = load_manifests([tmp_path], environ={})
    assert result.files == [str(good), str(bad), str(also_good)]
    assert result.registered == [str(good), str(also_good)]
    assert [t.name for t in registry.tools()] == ["info", "info_again"]
    assert "listing" not in registry
    assert codes(result) == ["TD312"]
    assert {d.location.file for d in result.errors} == {str(bad)}
    assert [t.name for t in result.bundles[str(bad)].tools] == ["listing"]


def test_register_false_only_checks(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", tool_yaml("info"))
    registry, result = load_manifests([path], register=False, environ={})
    assert result.ok
    assert result.registered == []
    assert len(registry) == 0
    assert [t.name for t in result.bundles[str(path)].tools] == ["info"]


def test_loading_again_replaces_the_files_entries(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        """
        version: 1
        tools:
          - {name: one, handler: "tooldeck.handlers.files:file_info", description: "A path."}
          - {name: two, handler: "tooldeck.handlers.files:file_info", description: "A path too."}
        """,
    )
    registry, _ = load_manifests([path], environ={})
    assert [t.name for t in registry.tools()] == ["one", "two"]
    path.write_text(path.read_text().replace("name: two", "name: three"))
    registry, result = load_manifests([path], registry=registry, environ={})
    assert result.ok
    assert [t.name for t in registry.tools()] == ["one", "three"]
    assert "two" not in registry


# --------------------------------------------------------------------------- activation
SUPPORTED = f"""
version: 1
supported_for: ["{MODULE}:BaseAgent", "{MODULE}:Outer.Inner"]
tools:
  - name: agent_info
    handler: tooldeck.handlers.files:file_info
    description: Describe a file or directory in the project, with its size and lines.
"""


@pytest.mark.parametrize(
    ("app_class", "active"),
    [
        (None, True),
        (BaseAgent, True),
        (SupportAgent, True),
        (Outer.Inner, True),
        (OtherAgent, False),
        (Outer, False),
    ],
)
def test_supported_for_matches_the_class_and_its_bases(
    tmp_path: Path, app_class: type | None, active: bool
) -> None:
    path = write(tmp_path, "m.yaml", SUPPORTED)
    registry, result = load_manifests([path], app_class=app_class, environ={})
    assert result.diagnostics == []
    assert ("agent_info" in registry) is active
    assert result.registered == ([str(path)] if active else [])
    bundle = result.bundles[str(path)]
    assert bundle.active is active
    if not active:
        assert app_class is not None
        assert app_class.__qualname__ in bundle.inactive_reason


@pytest.mark.parametrize(
    ("features", "active"),
    [
        ({"orders": True}, True),
        ({"orders": False}, False),
        ({}, False),
        ({"orders": "yes"}, True),
        ({"orders": []}, False),
    ],
)
def test_enabled_when_over_a_config_mapping(tmp_path: Path, features: dict, active: bool) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        tool_yaml("order_info", extra="enabled_when: config.features.orders\n"),
    )
    registry, result = load_manifests([path], config={"features": features}, environ={})
    assert result.diagnostics == []
    assert ("order_info" in registry) is active
    assert result.bundles[str(path)].active is active
    if not active:
        assert "config.features.orders" in result.bundles[str(path)].inactive_reason


def test_enabled_when_with_a_comparison_and_a_yaml_config(tmp_path: Path) -> None:
    on = write(tmp_path, "on.yaml", "version: 1\nenabled_when: config.features.orders\n")
    off = write(tmp_path, "off.yaml", "version: 1\nenabled_when: config.features.refunds\n")
    eur = write(
        tmp_path, "eur.yaml", "version: 1\nenabled_when: \"config.shop.currency == 'EUR'\"\n"
    )
    _, result = load_manifests([on, off, eur], config=FEATURES_YAML, environ={})
    assert result.diagnostics == []
    assert result.registered == [str(on), str(eur)]


def test_a_bundle_switched_off_on_reload_loses_its_tools(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        tool_yaml("switch_info", extra="enabled_when: config.on\n"),
    )
    registry, _ = load_manifests([path], config={"on": True}, environ={})
    assert "switch_info" in registry
    registry, result = load_manifests([path], registry=registry, config={"on": False}, environ={})
    assert result.diagnostics == []
    assert "switch_info" not in registry


def test_invalid_enabled_when_is_td215_and_blocks_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", "version: 1\nenabled_when: 'config.[x'\n")
    _, result = load_manifests([path], environ={})
    assert [(d.code, d.location.line, d.location.column) for d in result.diagnostics] == [
        ("TD215", 2, 15)
    ]
    assert result.registered == []


# ------------------------------------------------------------------------ interpolation
ENV_MANIFEST = """
version: 1
description: "Tools for ${env:TD_TEAM:-the whole company}"
mcp_servers:
  - name: github
    url: https://mcp.example.org/mcp
    description: Issues and pull requests of the project's repository.
    authorization: "Bearer ${env:TD_TOKEN}"
tools:
  - name: read_file
    handler: tooldeck.handlers.files:read_file
    description: Read part of a text file in the project as plain lines.
"""


def test_env_interpolation_reads_the_environ_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", ENV_MANIFEST)
    registry, result = load_manifests([path], environ={"TD_TOKEN": SECRET})
    assert result.diagnostics == []
    (server,) = registry.mcp_servers()
    assert server.authorization == f"Bearer {SECRET}"
    assert result.bundles[str(path)].description == "Tools for the whole company"
    assert SECRET in registry.secrets
    assert "the whole company" not in registry.secrets
    assert registry.secrets.redact(f"token {SECRET} here") == "token *** here"


def test_env_interpolation_does_not_fall_back_to_os_environ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TD_TOKEN", SECRET)
    path = write(tmp_path, "m.yaml", ENV_MANIFEST)
    registry, result = load_manifests([path], environ={"TD_TEAM": "search"})
    assert [(d.code, d.location.line, d.location.column) for d in result.diagnostics] == [
        ("TD301", 7, 20)
    ]
    assert "TD_TOKEN" in result.diagnostics[0].message
    assert result.registered == []
    assert len(registry) == 0


def test_env_values_are_redacted_in_diagnostics_and_call_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        """
        version: 1
        tools:
          - name: read_file
            handler: tooldeck.handlers.files:read_file
            description: Read part of a text file in the project as plain lines.
            params:
              - {name: path, description: "File path relative to the project directory"}
              - {name: max_lines, type: integer, default: "${env:TD_TOKEN}", description: "Lines"}
        """,
    )
    registry, result = load_manifests([path], environ={"TD_TOKEN": SECRET})
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "TD108"
    assert diagnostic.location is not None
    assert diagnostic.location.line == 8
    assert SECRET not in diagnostic.message
    assert '"***"' in diagnostic.message
    assert SECRET in registry.secrets
    with pytest.raises(ManifestError) as raised:
        result.raise_for_errors()
    assert SECRET not in str(raised.value)


def test_secrets_are_redacted_from_call_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", ENV_MANIFEST)
    with ToolRegistry(project_dir=tmp_path) as registry:
        load_manifests([path], registry=registry, environ={"TD_TOKEN": SECRET})
        result = registry.call("read_file", {"path": f"{SECRET}.txt"})
    assert not result.ok
    assert SECRET not in result.text
    assert "***" in result.text


def test_config_interpolation_from_a_mapping(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        """
        version: 1
        description: "Shop ${config:shop.name}, limit ${config:shop.limits}"
        tools:
          - name: shop_info
            handler: tooldeck.handlers.files:file_info
            description: "Describe a file of ${config:shop.name} (max ${config:shop.max} items)."
        """,
    )
    config = {"shop": {"name": "Example Shop", "max": 50, "limits": {"a": [1, 2]}}}
    registry, result = load_manifests([path], config=config, environ={})
    assert result.diagnostics == []
    spec = registry.get_tool("shop_info")
    assert spec is not None
    assert spec.description == "Describe a file of Example Shop (max 50 items)."
    assert result.bundles[str(path)].description == 'Shop Example Shop, limit {"a": [1, 2]}'
    assert "Example Shop" not in registry.secrets


def test_missing_config_keys_and_unknown_reference_kinds(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        """
        version: 1
        description: "${config:shop.nope} ${vault:secret/x} $${config:literal}"
        """,
    )
    _, result = load_manifests([path], config={"shop": {}}, environ={})
    assert sorted(codes(result)) == ["TD302", "TD303"]
    assert all(d.location.line == 2 for d in result.diagnostics)


def test_escaped_references_stay_literal(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", 'version: 1\ndescription: "costs $${env:PRICE}"\n')
    _, result = load_manifests([path], environ={})
    assert result.diagnostics == []
    assert result.bundles[str(path)].description == "costs ${env:PRICE}"


PROPERTIES_MANIFEST = """
version: 1
tools:
  - name: near_me
    handler: tooldeck.handlers.files:file_info
    description: "Describe a file near ${config:WebSearchTool.city} (${config:MCP.name})."
"""


@pytest.mark.parametrize("as_config", [False, True])
def test_config_interpolation_from_a_properties_file(tmp_path: Path, as_config: bool) -> None:
    path = write(tmp_path, "m.yaml", PROPERTIES_MANIFEST)
    config: Config | Path = load_config(HOSTED_PROPERTIES) if as_config else HOSTED_PROPERTIES
    registry, result = load_manifests([path], config=config, environ={})
    assert result.diagnostics == []
    spec = registry.get_tool("near_me")
    assert spec is not None
    assert spec.description == "Describe a file near Prague (Project MCP)."


def test_properties_keys_register_web_search_and_mcp_servers() -> None:
    registry, result = load_manifests([FILES_MANIFEST], config=str(HOSTED_PROPERTIES), environ={})
    assert result.diagnostics == []
    search = registry.web_search()
    assert search is not None
    assert (search.type, search.city, search.country, search.region) == (
        "web_search_preview",
        "Prague",
        "CZ",
        "Prague",
    )
    servers = [
        (s.name, s.url, s.authorization, s.description, s.via) for s in registry.mcp_servers()
    ]
    assert servers == [
        (
            "Project MCP",
            "https://example.org/mcp",
            "Bearer your-token",
            "MCP server for project-specific tools",
            "hosted",
        ),
        ("Admin MCP", "https://example.org/mcp-admin", None, None, "hosted"),
    ]
    assert "read_file" in registry


def test_config_diagnostics_are_part_of_the_result(tmp_path: Path) -> None:
    config = write(tmp_path, "app.properties", "a=1\na.b=2\n")
    _, result = load_manifests([FILES_MANIFEST], config=config, environ={})
    assert codes(result) == ["TD231"]
    assert result.ok
    assert result.registered == [str(FILES_MANIFEST)]


# ------------------------------------------------------------------------------- errors
def test_raise_for_errors_carries_every_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        """
        version: 1
        tools:
          - {name: a, handler: "os:system", description: "Run a shell command on the host."}
          - {name: b, handler: "tooldeck.handlers.nope:x", description: "A missing module."}
          - {name: c, handler: "tooldeck.handlers.files:SKIP_NAMES", description: "Not a function."}
        """,
    )
    _, result = load_manifests([path, tmp_path / "missing"], environ={})
    assert codes(result) == ["TD200", "TD310", "TD311", "TD313"]
    with pytest.raises(ManifestError) as raised:
        result.raise_for_errors()
    assert raised.value.diagnostics == tuple(result.errors)
    assert str(raised.value) == result.errors[0].format() + " (and 3 more)"


def test_raise_for_errors_is_quiet_without_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        tool_yaml("files.info"),  # a provider-unsafe name is only a warning
    )
    registry, result = load_manifests([path], environ={})
    result.raise_for_errors()
    assert result.ok
    assert "files.info" in registry


def test_from_manifests_raises_manifest_error(tmp_path: Path) -> None:
    good = write(tmp_path, "m.yaml", tool_yaml("info"))
    registry = from_manifests([good], project_dir=tmp_path)
    assert "info" in registry
    bad = write(tmp_path, "bad.yaml", "version: 2\n")
    with pytest.raises(ManifestError) as raised:
        from_manifests([bad])
    assert [d.code for d in raised.value.diagnostics] == ["TD213"]


def test_an_explicitly_empty_document_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", "---\n")
    _, result = load_manifests([path], environ={})
    assert not result.ok


HOSTED_TWICE = {
    "web_search": ("version: 1\nweb_search: {city: Oslo}\n", (2, 13)),
    "mcp_server": (
        "version: 1\nmcp_servers: [{name: docs, url: 'https://a.example/mcp'}]\n",
        (2, 22),
    ),
}


@pytest.mark.parametrize("kind", sorted(HOSTED_TWICE))
def test_hosted_entries_in_two_files_are_reported_at_both_places(tmp_path: Path, kind: str) -> None:
    text, (line, column) = HOSTED_TWICE[kind]
    first, second = write(tmp_path, "a.yaml", text), write(tmp_path, "b.yaml", text)
    _, result = load_manifests([first, second], environ={})
    places = {(d.code, d.location.file, d.location.line, d.location.column) for d in result.errors}
    assert places == {("TD220", str(first), line, column), ("TD220", str(second), line, column)}
    assert len(result.errors) == 2


def test_web_search_in_config_and_manifest_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", "version: 1\nweb_search: {city: Oslo}\n")
    registry, result = load_manifests([path], config=HOSTED_PROPERTIES, environ={})
    assert codes(result) == ["TD220"]
    (diagnostic,) = result.diagnostics
    assert diagnostic.location is not None
    assert diagnostic.location.file == str(HOSTED_PROPERTIES)
    assert "web search" in diagnostic.message
    assert result.registered == [str(path)]
    search = registry.web_search()
    assert search is not None
    assert search.city == "Oslo"


def test_a_web_search_clash_keeps_the_config_mcp_servers(tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", "version: 1\nweb_search: {city: Oslo}\n")
    registry, _ = load_manifests([path], config=HOSTED_PROPERTIES, environ={})
    assert [s.name for s in registry.mcp_servers()] == ["Project MCP", "Admin MCP"]


def test_a_config_clash_is_located_at_the_config_entry(tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", "version: 1\nweb_search: {city: Oslo}\n")
    _, result = load_manifests([path], config=HOSTED_PROPERTIES, environ={})
    (diagnostic,) = result.diagnostics
    assert diagnostic.location is not None
    assert diagnostic.location.line == 2  # WebSearchTool.type=default


def test_a_name_taken_by_code_is_a_located_diagnostic(tmp_path: Path) -> None:
    registry = ToolRegistry()
    registry.add_tool("info", "Describe a file, registered in code.", add_order)
    path = write(tmp_path, "m.yaml", tool_yaml("info"))
    other = write(tmp_path, "n.yaml", tool_yaml("other"))
    _, result = load_manifests([path, other], registry=registry, environ={})
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "TD220"
    assert diagnostic.location is not None
    assert (diagnostic.location.file, diagnostic.location.line) == (str(path), 3)
    assert diagnostic.location.json_path == "$.tools[0].name"
    assert "already registered by code" in diagnostic.message
    assert result.registered == [str(other)]
    assert registry.get_tool("info").handler is add_order  # type: ignore[union-attr]
    assert "other" in registry


# ---------------------------------------------------------------- allowed handlers
EXTRA = f"""
version: 1
tools:
  - name: add_order
    handler: {MODULE}:add_order
    description: Add an order to the customer's basket and return what was added.
    timeout: 2s
    tags: [orders]
    result: {{select: "{{id: order_id, n: quantity}}", format: json}}
    params:
      - {{name: order_id, pattern: "^O-[0-9]{{8}}$", description: "Order id, O-YYYYMMDD"}}
      - name: quantity
        type: integer
        default: 1
        minimum: 1
        maximum: 99
        description: How many items
      - {{name: express, type: boolean, default: false, description: "Ship with express delivery"}}
  - name: tag_items
    handler: {MODULE}:tag_items
    description: Attach tags to items and report what changed.
    params:
      - {{name: items, type: array, items: string, min_items: 1, description: "The item ids"}}
      - name: options
        type: object
        required: false
        description: How to tag the items
        properties:
          - {{name: tag, description: "The tag to attach"}}
          - {{name: priority, type: int, required: false, minimum: 0, description: "Higher first"}}
  - handler: {MODULE}:tag_items
    name: tag_items_inferred
  - handler: {MODULE}:Greeter.greet
"""


def code_registry() -> ToolRegistry:
    """The same tools as EXTRA, registered with add_tool."""
    registry = ToolRegistry()
    registry.add_tool(
        "add_order",
        "Add an order to the customer's basket and return what was added.",
        add_order,
        Param("order_id", description="Order id, O-YYYYMMDD", pattern="^O-[0-9]{8}$"),
        Param(
            "quantity", "integer", description="How many items", default=1, minimum=1, maximum=99
        ),
        Param("express", "boolean", description="Ship with express delivery", default=False),
        timeout=2.0,
        tags=("orders",),
        result={"select": "{id: order_id, n: quantity}", "format": "json"},
    )
    registry.add_tool(
        "tag_items",
        "Attach tags to items and report what changed.",
        tag_items,
        Param("items", "array", description="The item ids", items="string", min_items=1),
        Param(
            "options",
            "object",
            False,
            "How to tag the items",
            properties=(
                Param("tag", description="The tag to attach"),
                Param("priority", "integer", False, "Higher first", minimum=0),
            ),
        ),
    )
    registry.add_tool("tag_items_inferred", None, tag_items)
    registry.add_tool(None, None, Greeter.greet)
    return registry


def test_handlers_outside_the_allow_list_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", EXTRA)
    registry, result = load_manifests([path], environ={})
    assert codes(result) == ["TD310"] * 4
    assert all("tests.unit.test_loader" in d.message for d in result.diagnostics)
    assert len(registry) == 0
    _, result = load_manifests([path], allow_handlers=["tests.unit_other"], environ={})
    assert codes(result) == ["TD310"] * 4


def test_allow_handlers_enable_a_test_module(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", EXTRA)
    registry, result = load_manifests([path], allow_handlers=["tests.unit"], environ={})
    assert result.diagnostics == []
    assert [t.name for t in registry.tools()] == [
        "add_order",
        "tag_items",
        "tag_items_inferred",
        "greet",
    ]
    assert registry.get_tool("greet").handler is Greeter.greet  # type: ignore[union-attr]


def test_allow_handlers_still_check_attributes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "m.yaml",
        f"""
        version: 1
        tools:
          - {{name: a, handler: "{MODULE}:add_ordr", description: "A typo in the name."}}
          - {{name: b, handler: "{MODULE}:NOT_CALLABLE", description: "Not a function."}}
          - {{name: c, handler: "{MODULE}:Greeter.nope", description: "A missing method."}}
        """,
    )
    _, result = load_manifests([path], allow_handlers=["tests.unit"], environ={})
    assert codes(result) == ["TD312", "TD313", "TD312"]
    assert "did you mean 'add_order'" in result.diagnostics[0].message


def test_manifest_tools_equal_add_tool_registrations(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", EXTRA)
    loaded, result = load_manifests([path], allow_handlers=["tests.unit"], environ={})
    assert result.ok
    coded = code_registry()
    names = [t.name for t in coded.tools()]
    assert [t.name for t in loaded.tools()] == names
    for name in names:
        assert loaded.input_schema(name) == coded.input_schema(name), name
        from_yaml = loaded.get_tool(name)
        from_code = coded.get_tool(name)
        assert from_yaml is not None
        assert from_code is not None
        assert from_yaml.bundle == "m"
        assert from_yaml.origin is not None
        assert replace(from_yaml, bundle=None, origin=None) == from_code, name
    for provider in ("openai-chat", "anthropic", "mcp"):
        assert export_tools(loaded, provider) == export_tools(coded, provider)


def test_calling_manifest_tools_from_a_test_module(tmp_path: Path) -> None:
    path = write(tmp_path, "m.yaml", EXTRA)
    with ToolRegistry() as registry:
        load_manifests([path], registry=registry, allow_handlers=["tests.unit"], environ={})
        ordered = registry.call("add_order", '{"order_id": "O-20261122", "quantity": 3}')
        tagged = registry.call("tag_items", {"items": ["a"], "options": {"tag": "x"}})
        wrong = registry.call("add_order", {"order_id": "20261122"})
        greeting = registry.call("greet", {"name": "Ada"})
    assert ordered.ok, ordered.text
    assert ordered.text == '{"id": "O-20261122", "n": 3}'
    assert tagged.ok, tagged.text
    assert tagged.value == {"items": ["a"], "options": {"tag": "x"}}
    assert not wrong.ok
    assert wrong.error is not None
    assert wrong.error.kind == "invalid_arguments"
    assert greeting.text == "Hello, Ada!"


# ------------------------------------------------------------------------------ calling
def test_calling_the_bundled_file_tools(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("line one\nline two\nline three\n", encoding="utf-8")
    with ToolRegistry(project_dir=tmp_path) as registry:
        _, result = load_manifests([FILES_MANIFEST], registry=registry, environ={})
        assert result.ok
        read = registry.call("read_file", {"path": "notes.txt", "max_lines": 2})
        listing = registry.call("list_dir", "{}")
        escape = registry.call("read_file", {"path": "../outside.txt"})
        missing_arg = registry.call("read_file", {})
        prompt = registry.render_prompt("explore_project", {})
        spec = registry.get_tool("read_file")
    assert read.ok, read.text
    assert read.text == "line one\nline two\n[... 1 more line; call again with start_line=3]"
    assert listing.ok
    assert listing.value == [{"path": "notes.txt", "type": "file", "size": 29}]
    assert not escape.ok
    assert "outside the project directory" in escape.text
    assert missing_arg.error is not None
    assert missing_arg.error.kind == "invalid_arguments"
    assert "the main entry point" in prompt.text
    assert prompt.role == "user"
    assert spec is not None
    assert spec.timeout == 10.0
    assert spec.tags == ("files", "read-only")
    assert spec.bundle == "files"
