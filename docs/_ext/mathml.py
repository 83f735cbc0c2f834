"""Render the site's math as MathML when the pages are built.

Browsers draw MathML themselves (MathML Core), so the equations need no
script and no network: the built pages hold no TeX source to typeset. The
conversion is in tex_to_mathml.py; a formula it cannot convert stops the build
with the page and the formula, and so does a page that still shows raw TeX.
"""

from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util.math import get_node_equation_number
from tex_to_mathml import pages_with_raw_tex, to_mathml


def _mathml(translator, latex: str, display: str) -> str:
    try:
        return to_mathml(latex, display)
    except Exception as error:  # latex2mathml raises many types
        where = translator.builder.current_docname
        raise ExtensionError(f"{where}: cannot convert {latex!r}: {error}") from error


def visit_math(translator, node: nodes.math) -> None:
    translator.body.append(
        translator.starttag(node, "span", "", CLASS="math notranslate nohighlight")
    )
    translator.body.append(_mathml(translator, node.astext(), "inline"))
    translator.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(translator, node: nodes.math_block) -> None:
    translator.body.append(
        translator.starttag(node, "div", CLASS="math notranslate nohighlight")
    )
    if node["number"]:
        number = get_node_equation_number(translator, node)
        translator.body.append(f'<span class="eqno">({number})')
        translator.add_permalink_ref(node, _("Link to this equation"))
        translator.body.append("</span>")
    # Several equations separated by blank lines are one aligned block, as
    # Sphinx's MathJax renderer shows them; an equation that breaks lines
    # (\\) without an environment of its own is aligned at its "&"s.
    latex = node.astext()
    if not node.get("no-wrap", node.get("nowrap", False)):
        parts = [part for part in latex.split("\n\n") if part.strip()]
        if len(parts) > 1 or (r"\\" in latex and r"\begin" not in latex):
            latex = r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
    translator.body.append(_mathml(translator, latex, "block"))
    translator.body.append("</div>\n")
    raise nodes.SkipNode


def check_built_pages(app, exception) -> None:
    """Fail the build if a page still shows raw TeX."""
    if exception is None and app.builder.format == "html":
        raw = pages_with_raw_tex(Path(app.outdir))
        if raw:
            listing = "\n".join(f"  {page}: ...{text}..." for page, text in raw.items())
            raise ExtensionError(f"pages with unrendered TeX:\n{listing}")


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("build-finished", check_built_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
