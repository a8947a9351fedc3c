"""The Markdown docs hold together: every relative link and image resolves, every ``#anchor`` names a heading.

Checks README.md, CHANGELOG.md and docs/**/*.md. Links to ``http(s)://`` and ``mailto:`` are not followed;
links inside fenced code blocks and inline code spans are not links (GitHub does not render them). Anchors
are compared with GitHub's heading slugs: lower-case, punctuation other than ``-`` and ``_`` dropped, spaces
turned into ``-``, a repeated heading suffixed ``-1``, ``-2``, ... Also keeps the front page short.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 300

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# `](target)` closes every inline link and image, also an image nested in a link's text; an optional title follows.
_INLINE_TARGET = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
_SKIPPED_SCHEMES = ("http://", "https://", "mailto:")


def markdown_files(root: Path = ROOT) -> list[Path]:
    """README.md, CHANGELOG.md and every Markdown file under docs/ that exist."""
    files = [root / name for name in ("README.md", "CHANGELOG.md") if (root / name).is_file()]
    return files + sorted((root / "docs").rglob("*.md"))


def _prose_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, text, text with inline code spans blanked) of the lines outside fenced code blocks."""
    lines: list[tuple[int, str, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        lines.append((number, line, _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)))
    return lines


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (links reduced to their text, markup and punctuation dropped)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = "".join(char for char in text if char.isalnum() or char in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file defines: its headings' slugs (repeats numbered) and explicit HTML anchors."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line, prose in _prose_lines(path.read_text(encoding="utf-8")):
        found.update(_HTML_ANCHOR.findall(prose))
        match = _HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and reference definition of a Markdown file."""
    found: list[tuple[int, str]] = []
    for number, _, line in _prose_lines(path.read_text(encoding="utf-8")):
        targets = [m.group(1) for m in _INLINE_TARGET.finditer(line)]
        targets += [m.group(1) for m in _REFERENCE_DEF.finditer(line)]
        found += [(number, target.strip("<>")) for target in targets]
    return found


def check_links(files: list[Path], root: Path = ROOT) -> list[str]:
    """Every broken relative link or anchor of the given Markdown files, as ``file:line: target: why``."""
    problems: list[str] = []
    anchor_cache: dict[Path, set[str]] = {}
    for path in files:
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        for number, target in links(path):
            if not target or target.lower().startswith(_SKIPPED_SCHEMES):
                if not target:
                    problems.append(f"{shown}:{number}: empty link target")
                continue
            file_part, _, anchor = target.partition("#")
            file_part, anchor = unquote(file_part), unquote(anchor)
            if file_part.startswith("/"):
                linked = root / file_part.lstrip("/")
            elif file_part:
                linked = path.parent / file_part
            else:
                linked = path
            where = f"{shown}:{number}: {target}"
            if not linked.exists():
                problems.append(f"{where}: {file_part} does not exist (relative to {shown.parent}/)")
                continue
            if anchor and linked.is_file() and linked.suffix.lower() == ".md":
                resolved = linked.resolve()
                if resolved not in anchor_cache:
                    anchor_cache[resolved] = anchors(resolved)
                if anchor not in anchor_cache[resolved]:
                    problems.append(f"{where}: no heading with the anchor #{anchor} in {linked.name}")
    return problems


def test_docs_links_resolve():
    files = markdown_files()
    assert any(path.parent.name == "docs" for path in files), "docs/ has no Markdown page"
    problems = check_links(files)
    assert not problems, f"{len(problems)} broken Markdown link(s):\n" + "\n".join(problems)


def test_readme_is_a_short_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; keep it at most {README_MAX_LINES} and move detail into docs/"
    )


def test_checker_catches_broken_links(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "ok.png").write_bytes(b"")
    (tmp_path / "other.md").write_text("# Other page\n\n## Known `section` (here)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n"
        "\n"
        "[fine](other.md#known-section-here) ![fine](images/ok.png) [web](https://example.com/x) [me](#title)\n"
        "[missing](nowhere.md)\n"
        "![missing image](images/gone.png)\n"
        "[bad anchor](other.md#unknown)\n"
        "[bad in-page anchor](#no-such-heading)\n"
        "`[code](not_a_link.md)`\n"
        "```\n"
        "[fenced](also_not_a_link.md)\n"
        "```\n",
        encoding="utf-8",
    )
    problems = check_links([page], root=tmp_path)
    assert len(problems) == 4, problems
    assert problems[0].startswith("page.md:4: nowhere.md")
    assert problems[1].startswith("page.md:5: images/gone.png")
    assert problems[2].startswith("page.md:6: other.md#unknown") and "#unknown" in problems[2]
    assert problems[3].startswith("page.md:7: #no-such-heading")


def test_github_slugs():
    assert github_slug("Newton's coupled-solver API → config fields") == "newtons-coupled-solver-api--config-fields"
    assert github_slug("Videos (`--video`)") == "videos---video"
    assert github_slug("RL on a coupled scene (gymnasium task ids, rsl-rl)") == (
        "rl-on-a-coupled-scene-gymnasium-task-ids-rsl-rl"
    )
    assert github_slug("snake_case stays") == "snake_case-stays"
