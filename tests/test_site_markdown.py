"""Documentation-site Markdown: front matter, ``:::`` containers and ``{#id}`` anchors, on real
pages (tests/data/docsite, see SOURCES.md there) and tiny golden cases.

What is checked: the structure (blocks, headings, title) the loader reads; that the page draws
front matter as a metadata box and containers as admonition boxes, every drawn character taken
from the source character it shows (a highlight cannot land a line off), the markers never drawn;
that evidence copied from a rendered admonition is found; and that a page without any of them
renders exactly as it does without the container syntax.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents import markdown_view
from explorer.documents.load import load_document, load_path
from explorer.documents.markdown_view import MarkdownWalker, rendered_text
from explorer.documents.model import Document
from explorer.documents.site_markdown import container_label, front_matter_title
from explorer.retrieval.evidence import locate
from tests.conftest import SAMPLES, corpus_files, make_doc
from tests.test_render import parse, squash
from ui.render import Highlight, chunk_highlights
from ui.render_markdown import render_markdown

SITE = Path(__file__).parent / "data" / "docsite"
PAGES = sorted(SITE.glob("*.md"))
PAGE_IDS = [p.stem for p in PAGES]


def load(name: str) -> Document:
    return load_path(SITE / name)


def containers(doc: Document) -> list[str]:
    """The text of each container block (a ``blockquote`` block written with colons)."""
    return [
        doc.text[b.start : b.end]
        for b in doc.blocks
        if b.kind == "blockquote" and doc.text.startswith(":", b.start)
    ]


# --------------------------------------------------------------------------- structure


def test_the_pages_are_the_stored_public_pages() -> None:
    assert PAGE_IDS == [
        "docusaurus-admonitions",
        "docusaurus-versioning",
        "vite-env-and-mode",
        "vitepress-deploy",
        "vitepress-markdown",
    ]
    sources = (SITE.parent / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"{p.name}" in sources for p in PAGES)


def test_front_matter_title_is_the_title_and_the_top_heading_without_an_h1() -> None:
    doc = load("docusaurus-versioning.md")
    assert doc.text.startswith("---\nid: versioning\n")  # kept in the text, as written
    assert doc.blocks[0].kind == "code" and doc.text[doc.blocks[0].end - 3 :].startswith("---")
    assert doc.meta_title == "Versioning"
    assert doc.title == "Versioning"
    top = doc.headings[0]
    assert (top.level, top.path) == (1, ("Versioning",))
    assert doc.text[top.start : top.end] == "title: Versioning"
    assert [h.path for h in doc.headings[1:3]] == [
        ("Versioning", "Directory structure"),  # the {#directory-structure} anchor is no title
        ("Versioning", "Directory structure", "Tagging a new version"),
    ]
    offset = doc.text.index("Think about it before starting")
    assert doc.heading_path_at(offset) == ("Versioning",)


def test_a_body_h1_stays_the_title_and_front_matter_without_title_adds_none() -> None:
    deploy = load("vitepress-deploy.md")  # front matter: outline: deep
    assert deploy.meta_title == ""
    assert deploy.title == "Deploy Your VitePress Site"
    assert deploy.headings[0].path == ("Deploy Your VitePress Site",)
    admonitions = load("docusaurus-admonitions.md")  # front matter without a title, and an H1
    assert admonitions.title == "Admonitions"
    doc = make_doc('---\ntitle: "Release: 2.0"\n---\n# Notes\n\nText.\n', kind="markdown")
    assert [h.path for h in doc.headings] == [("Notes",)]
    assert front_matter_title(doc.text) == ("Release: 2.0", 4, 25)


@pytest.mark.parametrize(
    ("info", "kind", "title"),
    [
        (" tip", "tip", ""),
        ("tip Env Loading Priorities", "tip", "Env Loading Priorities"),
        (" danger STOP", "danger", "STOP"),
        (" details Click me to toggle the code {open}", "details", "Click me to toggle the code"),
        ("note[Your **Title** [a link](x)]{.padding--lg}", "note", "Your **Title** [a link](x)"),
        ("note{#admonition-id}", "note", ""),
        ("my-custom-admonition[My Title]", "my-custom-admonition", "My Title"),
        (" code-group", "code-group", ""),
    ],
)  # fmt: skip
def test_container_labels(info: str, kind: str, title: str) -> None:
    label = container_label(info)
    assert label.kind == kind
    assert info[label.kind_start : label.kind_start + len(kind)] == kind
    assert info[label.title_start : label.title_end] == title


def test_containers_are_blocks_through_their_closing_line() -> None:
    env = load("vite-env-and-mode.md")
    found = containers(env)
    assert [t.splitlines()[0] for t in found] == [
        ":::tip Env Loading Priorities",
        ":::warning SECURITY NOTES",
    ]
    assert all(t.endswith(":::") for t in found)  # "  :::" after a list item closes it too
    inside = [
        b
        for b in env.blocks
        if b.kind == "list_item" and "sensitive variables" in env.text[b.start : b.end]
    ]
    assert inside and ":::" not in env.text[inside[0].start : inside[0].end]
    markdown = load("vitepress-markdown.md")  # containers shown as examples in fences stay code
    assert len(containers(markdown)) == 13
    admonitions = load("docusaurus-admonitions.md")
    assert containers(admonitions) == [":::my-custom-admonition[My Title]\n\nIt works!\n\n:::"]
    deploy = load("vitepress-deploy.md")  # one sits in a list item, indented
    assert any(t.startswith("::: warning\n   Make sure") for t in containers(deploy))
    assert len(containers(deploy)) == 5


def test_nested_containers_close_by_their_own_colons() -> None:
    text = (
        ":::::info Parent\n\nParent content\n\n::::danger Child\n\nChild content\n\n"
        ":::tip Deep Child\n\nDeep child content\n\n:::\n\n::::\n\n:::::\n\nAfter.\n"
    )
    doc = make_doc(text, kind="markdown", name="n.md")
    assert [t.splitlines()[0] for t in containers(doc)] == [
        ":::::info Parent", "::::danger Child", ":::tip Deep Child",
    ]  # fmt: skip
    assert [t.splitlines()[-1] for t in containers(doc)] == [":::::", "::::", ":::"]
    after = [b for b in doc.blocks if doc.text[b.start : b.end] == "After."]
    assert after and after[0].kind == "paragraph"


def test_an_unclosed_container_runs_to_the_end_and_a_lone_marker_is_text() -> None:
    doc = make_doc("Intro.\n\n::: tip\nNever closed.\n\nStill inside.\n", kind="markdown")
    assert containers(doc) == ["::: tip\nNever closed.\n\nStill inside."]
    stray = make_doc("Intro.\n\n:::\n\nText.\n", kind="markdown")
    assert containers(stray) == []
    assert [stray.text[b.start : b.end] for b in stray.blocks] == ["Intro.", ":::", "Text."]


# --------------------------------------------------------------------------- drawing


class Recorder:
    """What the walker tells: every drawn character with its offset, outside code or inside."""

    def __init__(self) -> None:
        self.chars: list[tuple[str, int, bool]] = []  # (character, offset, inside code)
        self.stack: list[str] = []

    def text(self, text: str, offsets: list[int]) -> None:
        code = any(e in ("code_block", "html_block", "code_inline") for e in self.stack)
        self.chars.extend((ch, o, code) for ch, o in zip(text, offsets, strict=True))

    def open(self, element: str, tok: Any) -> None:
        self.stack.append(element)

    def close(self, element: str) -> None:
        assert self.stack.pop() == element


def recorded(doc: Document) -> Recorder:
    rec = Recorder()
    MarkdownWalker(doc.text, rec).walk()
    assert not rec.stack
    return rec


@pytest.mark.parametrize("path", PAGES, ids=PAGE_IDS)
def test_every_drawn_character_is_the_source_character_and_no_marker_is_drawn(path: Path) -> None:
    doc = load_path(path)
    rec = recorded(doc)
    mapped = [(ch, o) for ch, o, _code in rec.chars if o >= 0 and not ch.isspace()]
    assert len(mapped) > 0.9 * len([c for c, _o, _ in rec.chars if not c.isspace()])
    wrong = [(ch, o) for ch, o in mapped if doc.text[o] != ch and doc.text[o] not in "&\\"]
    assert not wrong[:5]  # decoded entities and escapes point at their "&" and "\\"
    drawn = {o for _ch, o, code in rec.chars if o >= 0 and not code}
    for b in doc.blocks:
        if b.kind != "blockquote" or not doc.text.startswith(":", b.start):
            continue
        colons = len(doc.text[b.start : b.end]) - len(doc.text[b.start : b.end].lstrip(":"))
        closing = doc.text.rfind("\n", b.start, b.end) + 1
        markers = set(range(b.start, b.start + colons)) | set(range(closing, b.end))
        assert not markers & drawn, doc.text[b.start : b.start + 40]
    fm = doc.blocks[0] if doc.text.startswith("---") else None
    if fm is not None:  # the fences are not drawn, every metadata line is
        assert not {*range(0, 3), *range(fm.end - 3, fm.end)} & drawn
        assert (
            "title: Versioning" in "".join(ch for ch, o, _ in rec.chars if 0 <= o < fm.end)
            or ("outline: deep" in "".join(ch for ch, o, _ in rec.chars if 0 <= o < fm.end))
            or "description: Handling" in "".join(ch for ch, o, _ in rec.chars if 0 <= o < fm.end)
        )


def test_front_matter_is_a_metadata_box_and_a_container_an_admonition_box() -> None:
    doc = load("docusaurus-versioning.md")
    html = render_markdown(doc, [])
    page = parse(html)
    boxes = [
        a.get("class") for tag, a in page.elements if "ce-admonition" in (a.get("class") or "")
    ]
    assert boxes == [
        "ce-admonition ce-adm-warning",
        "ce-admonition ce-adm-tip",
        "ce-admonition ce-adm-tip",
    ]
    assert [t for t, a in page.elements if a.get("class") == "ce-frontmatter"] == ["div"]
    assert "<pre" not in html.split('class="ce-frontmatter"')[1].split("</div></div>")[0]
    visible = page.visible()
    assert "FRONT MATTER" not in visible  # the box's head is drawn in CSS capitals: "Front matter"
    assert visible.startswith("Front matterid: versioningtitle: Versioningslug: /versioning")
    assert ":::" not in visible and "{#" not in visible
    assert "cautionThink about it" in visible and "archive older versionsIf you deploy" in visible


def test_a_titled_container_draws_its_title_with_inline_markdown() -> None:
    doc = make_doc(
        ":::note[Your **bold** `code` title]{.x}\n\nBody text.\n\n:::\n", kind="markdown"
    )
    page = parse(render_markdown(doc, []))
    assert page.visible() == "Your bold code titleBody text."
    assert ("strong", {}) in page.elements
    plain = make_doc("::: tip\nJust a tip.\n:::\n", kind="markdown")
    html = render_markdown(plain, [])
    assert '<p class="ce-adm-title ce-adm-kind">tip</p>' in html  # the kind, from the source


@pytest.mark.parametrize("path", PAGES, ids=PAGE_IDS)
def test_tints_are_subsequences_of_their_chunk_on_the_pages(path: Path) -> None:
    doc = load_path(path)
    for settings in (
        ChunkSettings(splitter="recursive", size=200, overlap=30),
        ChunkSettings(splitter="structure", unit="tokens", size=128, overlap=0),
        ChunkSettings(splitter="fixed", unit="chars", size=250, overlap=0),
    ):
        chunks = split(doc, settings)
        page = parse(render_markdown(doc, chunk_highlights(chunks)))
        assert page.badges() == [str(c.index) for c in chunks]
        for c in chunks:
            shown = iter(squash(c.text))
            tinted = squash(page.tinted(c.index))
            assert all(ch in shown for ch in tinted), c.index  # in order, nothing invented


def test_the_chunk_holding_a_container_tints_its_title_and_content() -> None:
    doc = load("vite-env-and-mode.md")
    start = doc.text.index(":::tip Env")
    end = doc.text.index("making changes.") + len("making changes.")
    chunk_page = parse(render_markdown(doc, [Highlight(start, end, 0, "#4e79a7")]))
    assert squash(chunk_page.tinted(0)).startswith("EnvLoadingPrioritiesAnenvfile")
    assert squash(chunk_page.tinted(0)).endswith("aftermakingchanges.")


# --------------------------------------------------------------------------- evidence


@pytest.mark.parametrize(
    ("name", "phrase", "source"),
    [
        (
            "docusaurus-versioning.md",
            "caution Think about it before starting",
            "caution\n\nThink about it before starting",
        ),
        (
            "vite-env-and-mode.md",
            "Env Loading Priorities An env file for a specific mode",
            "Env Loading Priorities\n\n  An env file for a specific mode",
        ),
        (
            "docusaurus-admonitions.md",
            "My Title It works!",
            "My Title]\n\nIt works!",
        ),
        (
            "docusaurus-versioning.md",
            "title: Versioning slug: /versioning",
            "title: Versioning\nslug: /versioning",
        ),
    ],
)  # fmt: skip
def test_evidence_copied_from_a_rendered_admonition_is_found(
    name: str, phrase: str, source: str
) -> None:
    doc = load(name)
    rendered = rendered_text(doc)
    assert rendered is not None
    spans = locate(phrase, doc.text, rendered)
    assert [doc.text[s:e] for s, e in spans] == [source]


# --------------------------------------------------------------------------- nothing else moves


def _plain_documents() -> list[Path]:
    paths = [*sorted(SAMPLES.glob("*.md")), *corpus_files(".md")]
    return [p for p in paths if not p.read_text(encoding="utf-8").startswith("---")]


@pytest.mark.parametrize("path", _plain_documents(), ids=lambda p: p.name)
def test_a_page_without_them_renders_as_without_the_container_syntax(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = load_path(path)
    chunks = split(doc, ChunkSettings(splitter="recursive", size=200, overlap=30))
    html = render_markdown(doc, chunk_highlights(chunks, selected=1))
    text = rendered_text(doc)
    monkeypatch.setattr(markdown_view, "enable_containers", lambda md: md)
    monkeypatch.setattr("explorer.documents.load.enable_containers", lambda md: md)
    assert render_markdown(doc, chunk_highlights(chunks, selected=1)) == html
    assert rendered_text(doc) == text
    again = load_document(path.read_bytes(), name=path.name)
    assert (again.blocks, again.headings, again.title) == (doc.blocks, doc.headings, doc.title)


def test_a_front_matter_past_a_thousand_lines_is_drawn_as_one_run_of_its_text() -> None:
    lines = [f"key{i}: value {i}" for i in range(1500)]
    doc = make_doc("---\n" + "\n".join(lines) + "\n---\nBody.\n", kind="markdown")
    rendered = rendered_text(doc)
    assert rendered is not None
    assert rendered.text.split("\n")[:2] == lines[:2] and "---" not in rendered.text
    assert rendered.spaced == " ".join([*lines, "Body."]).replace("\n", " ")
