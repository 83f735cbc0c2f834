"""TeX formulas to MathML, and a check that built pages hold no TeX.

The conversion is ``latex2mathml``'s, with two things it does not draw right
done here: ``\\operatorname`` (written as an upright ``\\mathrm`` name, and the
starred form with its subscript set below, as ``\\mathop ... \\limits``), and the
``aligned`` environment (a MathML table whose columns alternate right and left,
as in LaTeX, each cell converted on its own).
"""

import re
from pathlib import Path

from latex2mathml.converter import convert

_OPERATOR_STAR = re.compile(r"\\operatorname\*\{([^{}]*)\}")
_OPERATOR = re.compile(r"\\operatorname\{([^{}]*)\}")
_ALIGNED = re.compile(r"^\s*\\begin\{aligned\}(.*)\\end\{aligned\}\s*$", re.S)
_ROW_BREAK = re.compile(r"\\\\(?:\[[^\]]*\])?")
_CELL_BREAK = re.compile(r"(?<!\\)&")
_COLUMN_ALIGN = re.compile(r'columnalign="(left|right|center)"( style=")?')
_MATH_TAG = re.compile(r"^<math[^>]*>(.*)</math>$", re.S)


def to_mathml(latex: str, display: str) -> str:
    """MathML of the TeX formula ``latex``, ``display`` "inline" or "block"."""
    latex = _OPERATOR_STAR.sub(r"\\mathop{\\mathrm{\1}}\\limits", latex)
    latex = _OPERATOR.sub(r"\\mathrm{\1}", latex)
    latex = _ROW_BREAK.sub(r"\\\\", latex)  # no extra space after a row: "\\[4pt]"
    aligned = _ALIGNED.match(latex)
    mathml = convert(latex, display=display) if aligned is None else None
    if aligned is not None:
        mathml = _aligned(aligned.group(1), display)
    # MathML Core (Chromium) lays a table's cells out with CSS alone: give
    # every cell's columnalign as a style too.
    return _COLUMN_ALIGN.sub(_with_text_align, mathml)


def _with_text_align(match: re.Match) -> str:
    align, style = match.group(1), match.group(2)
    if style is None:
        return f'columnalign="{align}" style="text-align: {align}"'
    return f'columnalign="{align}" style="text-align: {align}; '


def _aligned(body: str, display: str) -> str:
    rows = [row for row in _ROW_BREAK.split(body) if row.strip()]
    columns = max(len(_CELL_BREAK.split(row)) for row in rows)
    # No space within a right-left pair of columns, 2em between pairs.
    spacing = " ".join("0em" if i % 2 == 0 else "2em" for i in range(columns - 1))
    body = "".join(f"<mtr>{_aligned_row(row)}</mtr>" for row in rows)
    table = (
        f'<mtable displaystyle="true" columnspacing="{spacing or "0em"}" '
        f'rowspacing="0.5em">{body}</mtable>'
    )
    return (
        '<math xmlns="http://www.w3.org/1998/Math/MathML" '
        f'display="{display}">{table}</math>'
    )


def _aligned_row(row: str) -> str:
    cells = []
    for column, cell in enumerate(_CELL_BREAK.split(row)):
        # "{}" first, so that a cell that starts with a relation (= or an
        # arrow) spaces it as between two terms, as LaTeX does.
        inner = _MATH_TAG.match(convert("{}" + cell.strip())).group(1)
        if column % 2 == 0:
            style = "padding-right: 0"
            cells.append(f'<mtd columnalign="right" style="{style}">{inner}</mtd>')
        else:
            style = "padding-left: 0; padding-right: 2em"
            cells.append(f'<mtd columnalign="left" style="{style}">{inner}</mtd>')
    return "".join(cells)


# TeX delimiters left in a page's text (outside code) are math that was not
# rendered: "\[", "\(" or "$$".
_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)
_RAW_TEX = re.compile(r"\\\[|\\\(|\$\$")


def pages_with_raw_tex(outdir: Path) -> dict[str, str]:
    """Built pages whose text (code blocks excepted) holds a TeX delimiter.

    Returns the pages' paths relative to ``outdir``, each with the text around
    the first delimiter found.
    """
    found = {}
    for page in sorted(Path(outdir).rglob("*.html")):
        if "_sources" in page.parts or "_downloads" in page.parts:
            continue
        text = _CODE.sub("", page.read_text(encoding="utf-8"))
        match = _RAW_TEX.search(text)
        if match:
            context = text[max(match.start() - 40, 0) : match.end() + 40]
            found[str(page.relative_to(outdir))] = context
    return found
