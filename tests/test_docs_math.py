"""The site's math is rendered to MathML at build time (docs/_ext/mathml.py).

Every formula of the pages and of the docstrings must convert, and the check the
build runs on its pages must find TeX left in a page's text, and only there.
The build itself runs in CI (README, docs command).
"""

import re
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

latex2mathml = pytest.importorskip(
    "latex2mathml.converter", reason='latex2mathml comes with pip install ".[test]"'
)
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import tex_to_mathml  # noqa: E402 (needs the path)

_FENCE = re.compile(r"```(?!\{math\}).*?```", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$([^$\n]+?)\$")
_ENVIRONMENT = re.compile(r"\\begin\{(align\*?|equation\*?)\}.*?\\end\{\1\}", re.S)


def page_formulas():
    """(page, formula) for the $...$, $$...$$ and amsmath math of every page."""
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = _FENCE.sub("", page.read_text())
        text = re.sub(r"`[^`\n]*`", "", text)
        for match in _DISPLAY.finditer(text):
            yield page.name, match.group(1)
        for match in _INLINE.finditer(_DISPLAY.sub("", text)):
            yield page.name, match.group(1)
        for match in _ENVIRONMENT.finditer(text):
            yield page.name, match.group(0)
    for module in sorted((ROOT / "sk_adaprox").rglob("*.py")):
        for match in re.finditer(r":math:`([^`]+)`", module.read_text()):
            yield module.name, match.group(1)


FORMULAS = list(page_formulas())


def test_the_pages_have_math():
    pages = {page for page, _ in FORMULAS}
    assert {"adagrad.md", "ons.md", "ftrl.md", "coin.md"} <= pages
    assert len(FORMULAS) >= 50


@pytest.mark.parametrize("page, formula", FORMULAS)
def test_every_formula_converts_to_mathml(page, formula):
    block = tex_to_mathml.to_mathml(formula, "block")
    element = ElementTree.fromstring(block)  # well-formed XML
    assert element.tag.endswith("math") and element.get("display") == "block"
    # no TeX command or alignment mark passed through as text, no empty operator
    assert not re.search(r">\s*(\\[A-Za-z]+|&amp;|&)\s*<", block), block
    assert "<mo />" not in block, (page, formula, block)


def test_aligned_columns_pair_right_and_left():
    block = tex_to_mathml.to_mathml(
        r"\begin{aligned} a &= b, & c &= d \\ e &= f, & g &= h \end{aligned}",
        "block",
    )
    assert 'columnspacing="0em 2em 0em"' in block
    aligns = re.findall(r'<mtd columnalign="(\w+)" style="text-align: \1', block)
    assert aligns == ["right", "left"] * 4


def test_the_build_check_finds_raw_tex_outside_code(tmp_path):
    rendered = latex2mathml.convert(r"w_{t+1} = w_t - \eta\, g_t")
    (tmp_path / "good.html").write_text(
        f"<p>{rendered}</p><pre>re.sub(r'\\[', x)</pre><code>$$</code>"
    )
    (tmp_path / "_sources").mkdir()
    (tmp_path / "_sources" / "page.html").write_text(r"\[ x \]")
    assert tex_to_mathml.pages_with_raw_tex(tmp_path) == {}
    for name, text in [
        ("display.html", r"<p>\[ x^2 \]</p>"),
        ("inline.html", r"<p>where \(x\) is</p>"),
        ("dollars.html", "<p>$$x$$</p>"),
    ]:
        (tmp_path / name).write_text(text)
    assert sorted(tex_to_mathml.pages_with_raw_tex(tmp_path)) == [
        "display.html",
        "dollars.html",
        "inline.html",
    ]
