"""Generate the LibreOffice-made PDFs in tests/fixtures/ (PDFs ragdash's own code did not
write): Flat ODT documents with long tables, converted by ``soffice --headless``.

Run: python scripts/make_lo_fixtures.py  (needs LibreOffice Writer; not used at test time).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
PLACES = ["Lyon", "Porto", "Gdansk", "Leeds", "Turin"]

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls>
 <style:font-face style:name="DejaVu Sans" svg:font-family="'DejaVu Sans'"
  xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:text-properties style:font-name="DejaVu Sans" fo:font-size="10pt"/>
 </style:default-style>
 <style:style style:name="H" style:family="paragraph">
  <style:paragraph-properties fo:margin-top="0.3cm" fo:margin-bottom="0.2cm"/>
  <style:text-properties fo:font-size="14pt" fo:font-weight="bold"/>
 </style:style>
 <style:style style:name="Break" style:family="paragraph" style:parent-style-name="H">
  <style:paragraph-properties fo:break-before="page"/>
  <style:text-properties fo:font-size="14pt" fo:font-weight="bold"/>
 </style:style>
 <style:style style:name="P" style:family="paragraph">
  <style:paragraph-properties fo:margin-bottom="0.2cm"/>
 </style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm"
   fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2cm" fo:margin-right="2cm"/>
 </style:page-layout>
 <style:style style:name="T" style:family="table">
  <style:table-properties style:width="17cm" table:align="left"/>
 </style:style>
 <style:style style:name="Row" style:family="table-row">
  <style:table-row-properties fo:keep-together="auto"/>
 </style:style>
 <style:style style:name="Ruled" style:family="table-cell">
  <style:table-cell-properties fo:padding="0.1cm" fo:border="0.5pt solid #000000"/>
 </style:style>
 <style:style style:name="Bare" style:family="table-cell">
  <style:table-cell-properties fo:padding="0.1cm" fo:border="none"/>
 </style:style>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1"/>
</office:master-styles>
<office:body><office:text>
"""
TAIL = "</office:text></office:body></office:document>\n"


def para(text: str, style: str = "P") -> str:
    return f'<text:p text:style-name="{style}">{escape(text)}</text:p>\n'


def table(rows: list[list[str]], ruled: bool, name: str, repeat_header: bool = True) -> str:
    cell_style = "Ruled" if ruled else "Bare"
    width = len(rows[0])

    def row(values: list[str]) -> str:
        cells = "".join(
            f'<table:table-cell table:style-name="{cell_style}" office:value-type="string">'
            + "".join(para(line) for line in value.split("\n"))
            + "</table:table-cell>"
            for value in values
        )
        return f'<table:table-row table:style-name="Row">{cells}</table:table-row>\n'

    out = [f'<table:table table:name="{name}" table:style-name="T">']
    out.append(f'<table:table-column table:number-columns-repeated="{width}"/>')
    if repeat_header:
        out.append(f"<table:table-header-rows>{row(rows[0])}</table:table-header-rows>")
    else:
        out.append(row(rows[0]))
    out.extend(row(r) for r in rows[1:])
    out.append("</table:table>\n")
    return "".join(out)


def stock_rows(count: int, long_row: int | None = None) -> list[list[str]]:
    rows = [["Item code", "Product", "Warehouse", "Quantity"]]
    for i in range(1, count + 1):
        product = f"Gadget type {i}"
        if i == long_row:
            product = "\n".join(
                f"Gadget type {i} note line {n} about handling" for n in range(1, 13)
            )
        rows.append([f"ART-{i:04d}", product, PLACES[i % len(PLACES)], str(11 * i)])
    return rows


PROSE = (
    "Stock counts are taken every Monday before the first delivery. Differences larger than "
    "two percent are reported to the regional manager, who confirms them within a week."
)


def long_ruled() -> str:
    """A ruled table over four pages, header repeated, one tall row cut by a page break,
    then prose after the table."""
    return (
        para("Warehouse stock register", "H")
        + para(PROSE)
        + table(stock_rows(120, long_row=38), ruled=True, name="Stock")
        + para("Closing notes", "H")
        + para("Damaged goods are returned to the supplier within thirty days of delivery.")
    )


def unruled_and_two() -> str:
    """Two borderless tables on one page, then a borderless table over pages whose header
    repeats, then prose that starts the next page."""
    carriers = [
        ["Carrier", "Phone", "Depot"],
        ["Norlys", "555-0100", "Aarhus"],
        ["Vexa Freight", "555-0199", "Ghent"],
        ["Polar Parcel", "555-0142", "Oslo"],
    ]
    return (
        para("Contacts and stock", "H")
        + table(carriers, ruled=False, name="Carriers")
        + para("Suppliers", "H")
        + table(
            [["Supplier", "Country"], ["Brightwire", "Estonia"], ["Coldcraft", "Chile"]],
            ruled=False,
            name="Suppliers",
        )
        + para("Stock list", "H")
        + table(stock_rows(75, long_row=22), ruled=False, name="List")
        + para("Audit", "Break")
        + para(PROSE)
    )


DOCUMENTS = {"lo_long_ruled": long_ruled, "lo_unruled_two_tables": unruled_and_two}


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in DOCUMENTS.items():
            source = Path(tmp) / f"{name}.fodt"
            source.write_text(HEAD + body() + TAIL, encoding="utf-8")
            subprocess.run(
                [
                    "soffice",
                    "--headless",
                    "--convert-to",
                    "pdf",
                    "--outdir",
                    str(FIXTURES),
                    str(source),
                ],
                check=True,
                capture_output=True,
            )
            print(f"wrote {FIXTURES / (name + '.pdf')}")


if __name__ == "__main__":
    sys.exit(main())
