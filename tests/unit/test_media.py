"""Rich results: Image / Audio / File, their caps, confinement and shaping into content blocks."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Audio, File, Image, ResultSpec, ToolRegistry
from tooldeck._media import guess_mime, is_textual, sniff_mime

PNG = b"\x89PNG\r\n\x1a\n" + bytes(200)
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(100)
PDF = b"%PDF-1.7\n" + bytes(50)


# ------------------------------------------------------------------- construction
def test_types_are_guessed_from_bytes_and_suffixes():
    assert Image(PNG).mime_type == "image/png"
    assert Image(data=PNG, mime_type="IMAGE/WEBP").mime_type == "image/webp"
    assert Image(path="charts/a.JPG").mime_type == "image/jpeg"
    assert Audio(WAV).mime_type == "audio/wav"
    assert Audio(path="a.mp3").mime_type == "audio/mpeg"
    assert File(PDF).mime_type == "application/pdf"
    assert File(b"plain words").mime_type == "application/octet-stream"
    assert File(b"{}", name="a.json").mime_type == "application/json"
    assert File(path="docs/report.pdf").name == "report.pdf"
    assert File(path="r.pdf", name="Q3.pdf").name == "Q3.pdf"
    assert Image(path="no-suffix").mime_type is None  # read from the bytes later
    assert sniff_mime(b"GIF89a...") == "image/gif"
    assert guess_mime("x.yaml") == "application/yaml"
    assert is_textual("text/csv")
    assert is_textual("application/ld+json")
    assert not is_textual("application/pdf")


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (Image, ValueError, "got neither"),
        (lambda: Image(PNG, path="a.png"), ValueError, "not both"),
        (lambda: Image("not bytes"), TypeError, "takes bytes, not str"),
        (lambda: Image(PNG, mime_type="text/plain"), ValueError, "only image/\\* types"),
        (lambda: Image(path="notes.txt"), ValueError, "guessed from 'notes.txt'"),
        (lambda: Image(b"????"), ValueError, "cannot tell the image type"),
        (lambda: Audio(PNG), ValueError, "only audio/\\* types, not 'image/png'"),
        (lambda: Image(PNG, mime_type="png"), ValueError, "is not a MIME type"),
        (lambda: Image(PNG, mime_type=5), TypeError, "mime_type must be a str"),
        (lambda: File(b"x", name=""), TypeError, "name must be"),
        (lambda: File(path=3), TypeError, "path must be"),
    ],
)
def test_an_authors_mistake_raises_at_construction(make, error, words):
    with pytest.raises(error, match=words):
        make()


def test_media_are_immutable_and_compare_by_value():
    image = Image(bytearray(PNG))
    assert image.data == PNG
    assert isinstance(image.data, bytes)
    assert image == Image(PNG)
    assert hash(image) == hash(Image(PNG))
    assert image != File(PNG)
    with pytest.raises(AttributeError):
        image.data = b""  # type: ignore[misc]
    assert "bytes" in repr(image)
    assert "\\x89" not in repr(image)


# ---------------------------------------------------------------------- shaping
def _registry(tmp_path: Path, handler: Any, **options: Any) -> ToolRegistry:
    registry = ToolRegistry(project_dir=tmp_path, **options)
    registry.add_tool("make", "Make media.", handler)
    return registry


def test_one_image_becomes_a_notice_and_a_content_block(tmp_path):
    image = Image(PNG)
    result = _registry(tmp_path, lambda: image).call("make", "{}")
    assert result.ok
    assert result.text == "[image: image/png, 208 B]"
    assert result.value is image
    assert result.content == (image,)


def test_a_list_mixes_text_data_and_media_in_order(tmp_path):
    (tmp_path / "r.pdf").write_bytes(PDF)
    value = ["Here it is:", Image(PNG), {"pages": 1}, File(path="r.pdf"), Audio(WAV)]
    result = _registry(tmp_path, lambda: value).call("make", "{}")
    assert result.text == (
        "Here it is:\n[image: image/png, 208 B]\n"
        '{"pages": 1}\n[file: r.pdf, application/pdf, 59 B]\n[audio: audio/wav, 116 B]'
    )
    assert result.value is value
    assert result.content is not None
    text, image, data, file, audio = result.content
    assert (text, data) == ("Here it is:", '{"pages": 1}')
    assert isinstance(file, File)
    assert file.data == PDF
    assert file.path == "r.pdf"
    assert isinstance(image, Image)
    assert isinstance(audio, Audio)


def test_plain_results_have_no_content(tmp_path):
    for value in ("text", None, 3, [1, 2], {"a": [1]}):
        result = _registry(tmp_path, lambda value=value: value).call("make", "{}")
        assert result.ok
        assert result.content is None


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"chart": Image(PNG)}, "inside a dict; return it by itself"),
        ([["nested", Image(PNG)]], "nested inside an item"),
        (b"raw", "returned bytes"),
    ],
)
def test_media_in_the_wrong_place_fails_the_call(tmp_path, value, words):
    result = _registry(tmp_path, lambda: value).call("make", "{}")
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "execution_error"
    assert words in result.text


def test_shaping_applies_to_text_parts_only(tmp_path):
    registry = ToolRegistry(project_dir=tmp_path)
    value = ["a caption that is long", Image(PNG), {"rows": [1, 2, 3], "n": 3}]
    shaping = ResultSpec(select="rows", max_chars=9)
    registry.add_tool("make", "Make.", lambda: value, result=shaping)
    result = registry.call("make", "{}")
    assert result.ok
    assert result.content is not None
    caption, image, rows = result.content
    assert caption.startswith("a caption\n[... truncated 13 characters")  # cut, not selected
    assert image == Image(PNG)
    assert rows == "[1, 2, 3]"  # selected from the data item


def test_secrets_are_masked_in_text_parts_and_text_files(tmp_path):
    registry = _registry(
        tmp_path, lambda: ["key sk-SECRET", File(b"token=sk-SECRET", name="a.txt"), Image(PNG)]
    )
    registry.secrets.add("sk-SECRET")
    result = registry.call("make", "{}")
    assert result.content is not None
    text, file, image = result.content
    assert "sk-SECRET" not in text
    assert "sk-SECRET" not in result.text
    assert isinstance(file, File)
    assert b"sk-SECRET" not in (file.data or b"")
    assert file.name == "a.txt"
    assert file.mime_type == "text/plain"
    assert image == Image(PNG)


# ------------------------------------------------------------------------- caps
def test_data_over_the_cap_fails_with_result_too_large(tmp_path):
    registry = _registry(tmp_path, lambda: Image(PNG), max_media_bytes=100)
    result = registry.call("make", "{}")
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "result_too_large"
    assert "208 B" in result.text
    assert "limit of 100 B" in result.text
    assert "max_media_bytes" in result.text


def test_the_cap_counts_a_results_media_together(tmp_path):
    registry = _registry(tmp_path, lambda: [Image(PNG), Image(PNG)], max_media_bytes=300)
    result = registry.call("make", "{}")
    assert result.error is not None
    assert result.error.kind == "result_too_large"
    assert "together with the result's other media" in result.text
    assert _registry(tmp_path, lambda: [Image(PNG)], max_media_bytes=300).call("make").ok


def test_a_path_over_the_cap_is_not_read(tmp_path, monkeypatch):
    (tmp_path / "big.png").write_bytes(PNG + bytes(10_000))
    registry = _registry(tmp_path, lambda: Image(path="big.png"), max_media_bytes=1000)
    result = registry.call("make", "{}")
    assert result.error is not None
    assert result.error.kind == "result_too_large"
    assert "image 'big.png' (10.2 KB)" in result.text


def test_a_file_read_stops_at_the_cap(tmp_path, monkeypatch):
    """A file that grows after it was measured is read only up to the cap, then refused."""
    from tooldeck.handlers import _confined

    (tmp_path / "grows.png").write_bytes(PNG)
    reads: list[int] = []
    real_reader = _confined.Project.reader

    def reader(fd: int, rel: str) -> Any:
        stream = real_reader(fd, rel)
        (tmp_path / "grows.png").write_bytes(PNG * 50)  # it grows after the stat
        read = stream.read

        class Counting:
            def read(self, n: int) -> bytes:
                reads.append(n)
                return read(n)

            def __enter__(self) -> Any:
                return self

            def __exit__(self, *exc: object) -> None:
                stream.close()

        return Counting()

    monkeypatch.setattr(_confined.Project, "reader", staticmethod(reader))
    registry = _registry(tmp_path, lambda: Image(path="grows.png"), max_media_bytes=500)
    result = registry.call("make", "{}")
    assert reads == [501]
    assert result.error is not None
    assert result.error.kind == "result_too_large"
    assert "(over 500 B)" in result.text


def test_max_media_bytes_is_checked():
    with pytest.raises(ValueError, match="max_media_bytes"):
        ToolRegistry(max_media_bytes=-1)
    with pytest.raises(ValueError, match="max_media_bytes"):
        ToolRegistry(max_media_bytes=1.5)  # type: ignore[arg-type]


# ------------------------------------------------------------------ confinement
def _refused(tmp_path: Path, media: Any) -> str:
    result = _registry(tmp_path, lambda: media).call("make", "{}")
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "execution_error"
    return result.text


def test_a_path_is_read_inside_the_project_and_typed_from_its_bytes(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "chart").write_bytes(PNG)
    result = _registry(tmp_path, lambda: Image(path="sub/chart")).call("make", "{}")
    assert result.ok
    assert result.content is not None
    (image,) = result.content
    assert isinstance(image, Image)
    assert image.data == PNG
    assert image.mime_type == "image/png"


def test_a_dotdot_path_is_refused(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.png").write_bytes(PNG)
    assert "outside the project directory" in _refused(project, Image(path="../secret.png"))
    absolute = str(tmp_path / "secret.png")
    assert "outside the project directory" in _refused(project, Image(path=absolute))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX confinement")
def test_a_symlink_out_of_the_project_is_refused(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.png").write_bytes(PNG)
    (project / "link.png").symlink_to(tmp_path / "secret.png")
    assert "outside the project directory" in _refused(project, Image(path="link.png"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.png")
    outcome: list[str] = []
    worker = threading.Thread(
        target=lambda: outcome.append(_refused(tmp_path, Image(path="pipe.png"))), daemon=True
    )
    worker.start()
    worker.join(timeout=60)  # a generous bound against a hang, not a timing assertion
    assert outcome
    assert "is not a regular file" in outcome[0]


def test_a_missing_path_and_a_folder_are_refused(tmp_path):
    (tmp_path / "folder.png").mkdir()
    assert "does not exist" in _refused(tmp_path, Image(path="gone.png"))
    assert "is not a regular file" in _refused(tmp_path, Image(path="folder.png"))


def test_a_path_needs_a_project_dir():
    registry = ToolRegistry()
    registry.add_tool("make", "Make.", lambda: Image(path="a.png"))
    result = registry.call("make", "{}")
    assert result.error is not None
    assert "has none (ToolRegistry(project_dir=...)" in result.text


def test_a_path_of_unknown_type_is_refused_for_an_image(tmp_path):
    (tmp_path / "blob").write_bytes(b"????")
    assert "cannot tell the image type of 'blob'" in _refused(tmp_path, Image(path="blob"))
    result = _registry(tmp_path, lambda: File(path="blob")).call("make", "{}")
    assert result.content is not None
    (file,) = result.content
    assert isinstance(file, File)
    assert file.mime_type == "application/octet-stream"


async def test_acall_shapes_media_too(tmp_path):
    (tmp_path / "c.png").write_bytes(PNG)

    async def make() -> list[Any]:
        return ["chart", Image(path="c.png")]

    result = await _registry(tmp_path, make).acall("make", "{}")
    assert result.ok
    assert result.content is not None
    assert result.content[1].data == PNG


def test_call_many_shapes_media_too(tmp_path):
    (tmp_path / "c.png").write_bytes(PNG)
    registry = _registry(tmp_path, lambda: ["chart", Image(path="c.png")])
    first, second = registry.call_many([("make", "{}"), ("make", "{}")], strategy="parallel")
    assert first.ok
    assert first.content is not None
    assert first.content[1].data == PNG
    assert second.content == first.content


def test_the_confinement_module_is_loaded_only_to_read_a_path():
    """The core reaches tooldeck.handlers._confined by name, and only on the path route."""
    import subprocess

    code = (
        "import sys, tooldeck\n"
        "r = tooldeck.ToolRegistry()\n"
        "r.add_tool('t', 'T.', lambda: [tooldeck.Image(b'\\x89PNG\\r\\n\\x1a\\n')])\n"
        "assert r.call('t', '{}').ok\n"
        "print('tooldeck.handlers._confined' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
