"""Table classes decided from layout, not language (issue 28), on real PDFs drawn here:

* a Chinese quarterly statement whose row label is cut by the page break and whose
  continuation page carries no header — the label is re-assembled, the header carried;
* the same statement with a new title and the identical header on page 2 — kept apart;
* a two-line header repeated on a facing page whose columns shift with the margins;
* a table in the last column of a three-column page, continued at the top of the next
  page's first column under "…—Continued" with its header repeated.
"""

from __future__ import annotations

import io

import pdfplumber
import pytest
from pdf_factory import drawn_pdf, table_items

from ragdash.ingestion.furniture import find_furniture
from ragdash.ingestion.joins import join_tables
from ragdash.ingestion.pdf_layout import page_layout

CJK_COLUMNS = [72.0, 330.0, 450.0]
LABELS = [
    "一、营业总收入", "其中：营业收入", "二、营业总成本", "其中：营业成本", "税金及附加",
    "销售费用", "管理费用", "研发费用", "财务费用", "其中：利息费用", "利息收入",
    "加：其他收益", "投资收益", "公允价值变动收益", "信用减值损失", "资产减值损失",
    "资产处置收益", "三、营业利润", "加：营业外收入", "减：营业外支出", "四、利润总额",
    "减：所得税费用", "五、净利润", "（一）按经营持续性分类", "持续经营净利润",
    "终止经营净利润", "（二）按所有权归属分类", "归属于母公司股东的净利润", "少数股东损益",
    "六、其他综合收益的税后净额", "（一）不能重分类进损益的其他综合收益",
]
AFTER = ["2.权益法下不能转损益的其他综合收益", "3.其他权益工具投资公允价值变动",
         "4.企业自身信用风险公允价值变动", "七、综合收益总额", "八、每股收益"]


def _amount(i: int) -> str:
    return f"{(i * 7919) % 900000 + 100000:,}.{i % 100:02d}"


def _layouts(pdf: bytes) -> list:
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        return [page_layout(page, n) for n, page in enumerate(doc.pages, 1)]


def _tables(pdf: bytes):
    layouts = _layouts(pdf)
    return join_tables(layouts, find_furniture(layouts))


def _statement(new_title: bool = False, label_first: bool = False) -> bytes:
    furniture = [(72, 30, "示例股份有限公司 2024 年第三季度报告")]
    head = [["项目", "本期发生额", "上期发生额"]]
    rows = [[label, _amount(i), _amount(i + 50)] for i, label in enumerate(LABELS)]
    p1 = [*furniture, (72, 62, "合并利润表"), (72, 78, "单位：元")]
    items, top = table_items(head + rows, CJK_COLUMNS, 100, step=20)
    p1 += [*items, (72, top, "1.重新计量设定受益计"), (290, 805, "1")]
    p2 = list(furniture)
    top = 60
    if new_title:  # another statement: a title, then the same column names
        p2 += [(72, 62, "母公司利润表"), (72, 78, "单位：元")]
        items, top = table_items(head, CJK_COLUMNS, 100, step=20)
        p2 += items
    first = ["划净负债或净资产的变动", _amount(97), _amount(98)]
    more = [[label, _amount(i + 200), _amount(i + 300)] for i, label in enumerate(AFTER)]
    opening = [first]
    if label_first:  # the page opens with a group label: a row with no numbers
        p1 = [item for item in p1 if item[2] != "1.重新计量设定受益计"]
        opening = [["（二）将重分类进损益的其他综合收益", "", ""]]
    items, top = table_items([*opening, *more], CJK_COLUMNS, top, step=20)
    p2 += [*items, (72, top + 40, "法定代表人：张三    主管会计工作负责人：李四"), (290, 805, "2")]
    return drawn_pdf([p1, p2], font_size=10, font="STSong-Light")


def test_cjk_statement_label_cut_by_the_break_is_one_row_under_the_carried_header():
    tables, decisions = _tables(_statement())
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert decision.joined, decision.reason
    (table,) = [t for t in tables if t.page_start == 1]
    assert table.page_end == 2
    texts = [r.text for r in table.rows]
    glued = [t for t in texts if "1.重新计量设定受益计" in t]
    assert len(glued) == 1 and "划净负债或净资产的变动" in glued[0]
    assert _amount(97) in glued[0]
    assert not any(t.startswith("划净负债") for t in texts)  # not a row of its own
    assert table.header_text.replace(" ", "") == "项目|本期发生额|上期发生额"
    # the header is not any data row, and no data row is in the header
    assert not any("营业" in h for h in table.header)


def test_cjk_statement_with_a_new_title_and_the_same_header_is_kept_apart():
    tables, decisions = _tables(_statement(new_title=True))
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not decision.joined
    assert "母公司利润表" in decision.reason


def _facing(caption_between: bool = False) -> bytes:
    columns = [72.0, 230.0, 330.0, 440.0]
    head = [["Region", "Population", "Median", "Share of"],
            ["", "(thousands)", "income ($)", "total (%)"]]
    rows = [
        [f"District {i:02d}", f"{1200 + 37 * i:,}", f"{41000 + 513 * i:,}", f"{1 + i % 9}.{i % 7}"]
        for i in range(1, 80)
    ]
    pages = []
    start = 0
    for page, shift in ((1, 0.0), (2, 36.0)):
        items = [(72 + shift, 30, "Statistical Abstract of the Districts"),
                 (290 + shift, 805, str(page))]
        top = 60.0
        if page == 1:
            items.append((72 + shift, top, "Table 4. Population and income by district"))
            top += 24
        elif caption_between:
            items.append((72 + shift, top, "Table 5. Population and income by district, 2023"))
            top += 24
        else:
            items.append((72 + shift, top, "Table 4. Population and income by district—Continued"))
            top += 24
        cells, top = table_items(head, columns, top, shift)
        body, top = table_items(rows[start:start + 45], columns, top + 4, shift)
        start += 45
        pages.append([*items, *cells, *body])
    return drawn_pdf(pages)


def test_two_line_header_repeated_on_a_facing_page_with_shifted_columns_joins():
    tables, decisions = _tables(_facing())
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert decision.joined, decision.reason
    (table,) = [t for t in tables if t.page_start == 1]
    texts = [r.text for r in table.rows]
    assert not any("(thousands)" in t or t.startswith("Region") for t in texts)
    assert any(t.startswith("District 46") for t in texts)
    assert len([t for t in texts if t.startswith("District")]) == 79


def test_same_two_line_header_under_a_new_table_caption_is_kept_apart():
    _, decisions = _tables(_facing(caption_between=True))
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not decision.joined


def _prose_lines(column: float, top: float, bottom: float, seed: int) -> list:
    words = ["agency", "estimates", "burden", "respondents", "comments", "rule", "hours",
             "information", "collection", "proposed", "annual", "costs"]
    items = []
    n = seed
    while top < bottom:
        line = " ".join(words[(n + k * 5) % len(words)] for k in range(5))
        items.append((column, top, line))
        top += 11
        n += 3
    return items


def _federal_register() -> bytes:
    cols = [36.0, 222.0, 408.0]
    head = [["Activity", "Hours", "Cost"]]
    rows = [[f"Form {i} review", f"{10 + i}", f"${(120 + 9 * i):,}"] for i in range(1, 40)]
    p1 = [(36, 20, "Federal Register / Vol. 89, No. 12 / Proposed Rules"), (290, 810, "2301")]
    p1 += _prose_lines(cols[0], 50, 780, 1) + _prose_lines(cols[1], 50, 780, 2)
    p1 += _prose_lines(cols[2], 50, 450, 3)
    p1.append((cols[2], 470, "ESTIMATED COSTS"))
    items, top = table_items(head + rows[:24], [408.0, 500.0, 545.0], 490, step=11)
    p1 += items
    p2 = [(36, 20, "Federal Register / Vol. 89, No. 12 / Proposed Rules"), (290, 810, "2302")]
    p2.append((cols[0], 50, "ESTIMATED COSTS—Continued"))
    items, top = table_items(head + rows[24:], [36.0, 128.0, 173.0], 70, step=11)
    p2 += items
    p2 += _prose_lines(cols[0], top + 20, 780, 4)
    p2 += _prose_lines(cols[1], 50, 780, 5) + _prose_lines(cols[2], 50, 780, 6)
    return drawn_pdf([p1, p2], font_size=8)


def test_table_in_the_last_column_continued_under_continued_caption_joins():
    tables, decisions = _tables(_federal_register())
    assert any(d.joined and (d.page_a, d.page_b) == (1, 2) for d in decisions)
    joined = [t for t in tables if t.page_start == 1 and t.page_end == 2]
    texts = [r.text for t in joined for r in t.rows]
    assert any("Form 24 review" in t for t in texts) and any("Form 25 review" in t for t in texts)


def test_cjk_continuation_opening_with_a_label_row_has_no_header_of_its_own():
    """The report lists a table's header: a group label opening a headerless continuation
    page is a row, not the header — the table's header is the statement's column names."""
    pdf = _statement(label_first=True)
    page2 = _layouts(pdf)[1]
    (region,) = [t for t in page2.tables if not t.weak]
    assert region.header_rows == 0
    tables, decisions = _tables(pdf)
    assert any(d.joined and (d.page_a, d.page_b) == (1, 2) for d in decisions)
    (table,) = [t for t in tables if t.page_start == 1]
    assert table.header_text.replace(" ", "") == "项目|本期发生额|上期发生额"
    assert any(r.text.startswith("（二）将重分类") for r in table.rows)


def _ruled_statement(repeat_header: bool) -> bytes:
    """The statement as a ruled grid (find_tables reads it), the cut label in a row of its
    own at the foot of page 1; page 2 with or without the header row repeated."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    _, height = A4
    xs = [60, 320, 440, 560]
    head = ["项目", "本期发生额", "上期发生额"]

    def grid(canvas: Canvas, rows: list, top: float) -> float:
        y = top
        for row in rows:
            canvas.line(xs[0], height - y, xs[-1], height - y)
            for k, cell in enumerate(row):
                if cell:
                    canvas.drawString(xs[k] + 4, height - y - 14, cell)
            y += 20
        canvas.line(xs[0], height - y, xs[-1], height - y)
        for x in xs:
            canvas.line(x, height - top, x, height - y)
        return y

    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    canvas.setFont("STSong-Light", 10)
    canvas.drawString(60, height - 40, "合并利润表")
    rows = [[label, _amount(i), _amount(i + 50)] for i, label in enumerate(LABELS)]
    grid(canvas, [head, *rows, ["1.重新计量设定受益计", "", ""]], 60)
    canvas.drawString(290, height - 815, "1")
    canvas.showPage()
    canvas.setFont("STSong-Light", 10)
    rows = [["划净负债或净资产的变动", _amount(97), _amount(98)]]
    rows += [[label, _amount(i + 200), _amount(i + 300)] for i, label in enumerate(AFTER)]
    y = grid(canvas, [head, *rows] if repeat_header else rows, 60)
    canvas.drawString(60, height - y - 40, "法定代表人：张三")
    canvas.drawString(290, height - 815, "2")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


@pytest.mark.parametrize("repeat_header", [False, True])
def test_ruled_cjk_statement_cut_label_is_one_row_readable_either_way(repeat_header):
    tables, decisions = _tables(_ruled_statement(repeat_header))
    assert any(d.joined and (d.page_a, d.page_b) == (1, 2) for d in decisions)
    (table,) = [t for t in tables if t.page_start == 1]
    assert table.rows_joined == 1 and len(table.rows) == len(LABELS) + 1 + len(AFTER)
    assert table.header_text.replace(" ", "") == "项目|本期发生额|上期发生额"
    (row,) = [r for r in table.rows if "重新计量" in r.text]
    cells = row.text.splitlines()[0]
    assert cells.startswith("1.重新计量设定受益计划净负债或净资产的变动 | ")
    # the page's own lines stay readable in the row: a quote from either page is found
    assert f"划净负债或净资产的变动 {_amount(97)} {_amount(98)}" in row.text.splitlines()


# --------------------------------------------------------------------------- issue 44
# Class a: a ruled statement over three pages (running header, "第 N 页 共 3 页" on every
# page, no header after page 1) whose label-only row lies outside the ruled grid.


def _three_page_statement(foot: str = "", top: str = "", grid_top: tuple = ()) -> bytes:
    """``foot``: a label printed under page 1's grid (its figures on page 2, whose first
    row ends the label); ``top``: a label printed over page 2's grid; ``grid_top``: label
    rows opening page 2's grid, drawn as rows with empty value cells."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    _, height = A4
    xs = [60, 320, 440, 560]

    def grid(canvas: Canvas, rows: list, top_y: float) -> float:
        y = top_y
        for row in rows:
            canvas.line(xs[0], height - y, xs[-1], height - y)
            for k, cell in enumerate(row):
                if cell:
                    canvas.drawString(xs[k] + 4, height - y - 14, cell)
            y += 20
        canvas.line(xs[0], height - y, xs[-1], height - y)
        for x in xs:
            canvas.line(x, height - top_y, x, height - y)
        return y

    rows = [[label, _amount(i), _amount(i + 50)] for i, label in enumerate(LABELS)]
    later = [[label, _amount(i + 200), _amount(i + 300)] for i, label in enumerate(AFTER)]
    opening = [["划净负债或净资产的变动", _amount(97), _amount(98)]] if foot else []
    labels = [[label, "", ""] for label in grid_top]
    head = ["项目", "本期发生额", "上期发生额"]
    chunks = [[head, *rows[:20]], labels + opening + rows[20:], later]
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    for page, chunk in enumerate(chunks, 1):
        canvas.setFont("STSong-Light", 10)
        canvas.drawString(60, height - 30, "示例股份有限公司 2024 年第三季度报告")
        y = 70.0
        if page == 1:
            canvas.drawString(60, height - 50, "合并利润表")
        if page == 2 and top:
            canvas.drawString(64, height - y - 14, top)
            y += 20
        y = grid(canvas, chunk, y)
        if page == 1 and foot:
            canvas.drawString(64, height - y - 14, foot)
        canvas.drawString(260, height - 815, f"第 {page} 页 共 3 页")
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def test_label_cut_by_the_break_under_the_ruled_grid_is_one_row_over_three_pages():
    """The label "1.重新计量设定受益计" sits under page 1's ruled grid (its row has no rules,
    so pdfplumber's grid stops above it); page 2 opens with the rest of the label and its
    figures. It is the table's row, not "text after the table": one table over the three
    pages, the label whole in one row with its figures."""
    tables, decisions = _tables(_three_page_statement(foot="1.重新计量设定受益计"))
    assert all(d.joined for d in decisions), [d.reason for d in decisions]
    (table,) = tables
    assert (table.page_start, table.page_end) == (1, 3)
    (row,) = [r for r in table.rows if "重新计量" in r.text]
    assert "1.重新计量设定受益计划净负债或净资产的变动" in row.text and _amount(97) in row.text
    assert len(table.rows) == len(LABELS) + 1 + len(AFTER)
    assert table.header_text.replace(" ", "") == "项目|本期发生额|上期发生额"


@pytest.mark.parametrize("label", ["5.现金流量套期储备", "持续经营净利润"])
def test_label_over_the_ruled_grid_of_a_headerless_page_is_a_row(label):
    """A label-only row printed over page 2's grid — numbered ("5.…": a row number is no
    figure) or holding 续 inside a word (持续, "continuing", is no "(续)" marker) — is
    the table's group row: the pages join and the label is kept as a row, not dropped."""
    tables, decisions = _tables(_three_page_statement(top=label))
    assert all(d.joined for d in decisions), [d.reason for d in decisions]
    (table,) = tables
    assert any(r.text == label and r.page == 2 for r in table.rows)
    assert len(table.rows) == len(LABELS) + 1 + len(AFTER)


@pytest.mark.parametrize("labels", [("持有至到期投资",), ("持有至到期投资", "长期应收款")])
def test_label_rows_opening_a_headerless_ruled_grid_are_rows_not_a_title(labels):
    """Page 2's grid opens with label-only rows drawn in the grid (their value cells ruled
    and empty — a balance sheet's 持有至到期投资 with no figures this quarter). The first is
    no title of a new table and neither is a header: the three pages are one table and the
    labels are its rows, under the statement's header."""
    tables, decisions = _tables(_three_page_statement(grid_top=labels))
    assert all(d.joined for d in decisions), [d.reason for d in decisions]
    (table,) = tables
    assert [r.text for r in table.rows if r.page == 2][: len(labels)] == list(labels)
    assert len(table.rows) == len(LABELS) + len(labels) + len(AFTER)
    assert table.header_text.replace(" ", "") == "项目|本期发生额|上期发生额"


@pytest.mark.parametrize(
    "foot", ["资料来源：国家统计局", "以下为母公司利润表", "Source: company filings"]
)
def test_a_note_or_sentence_under_the_grid_still_keeps_the_pages_apart(foot):
    """Guard for the rule above: a note or a sentence under the grid is no row label — a
    source line, a line that runs past the first column — and the join is refused."""
    if not foot.isascii():
        foot = foot * 3  # wider than the label column: it reaches the figures' columns
    _, decisions = _tables(_three_page_statement(foot=foot))
    first = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert first and not first[0].joined


# Class c: a multi-line header (a spanning label over the columns) repeated on the facing
# page, where the margins swap and the text block is set narrower.


def _facing_scaled(scale: float, caption_b: str = "", note: str = "") -> bytes:
    base = [72.0, 230.0, 330.0, 440.0]
    head = [["", "Lead time (years)", "", ""], ["Region", "Population", "Median", "Share of"],
            ["", "(thousands)", "income ($)", "total (%)"]]
    rows = [
        [f"District {i:02d}", f"{1200 + 37 * i:,}", f"{41000 + 513 * i:,}", f"{1 + i % 9}.{i % 7}"]
        for i in range(1, 80)
    ]
    pages = []
    for page in (1, 2, 3, 4):
        right = page % 2 == 1  # right-hand pages: wide left margin; left-hand: narrow
        shift, stretch = (0.0, 1.0) if right else (-36.0, scale)
        columns = [72 + (c - 72) * stretch for c in base]
        items = [
            (72 if right else 372, 30, "Statistical Abstract" if right else "Chapter 4: Districts"),
            (500 if right else 72, 805, str(page)),
        ]
        title = "Table 4. Population and income by district"
        if page > 1:
            title = caption_b if caption_b and page == 2 else f"{title}—Continued"
        items.append((72 + shift, 60, title))
        cells, top = table_items(head, columns, 84, shift)
        body, top = table_items(rows[(page - 1) * 20 : page * 20], columns, top + 4, shift)
        if note and page == 1:
            body.append((72 + shift, top + 10, note))
        pages.append([*items, *cells, *body])
    return drawn_pdf(pages)


@pytest.mark.parametrize("scale", [0.9, 1.1])
def test_repeated_multi_line_header_on_a_narrower_facing_page_joins(scale):
    """The left-hand pages set the table 36 pt further left and 10% narrower (or wider):
    its columns are compared by their places relative to the table's width, and the four
    pages are one table with the header dropped wherever it is repeated."""
    tables, decisions = _tables(_facing_scaled(scale))
    assert all(d.joined for d in decisions), [d.reason for d in decisions]
    (table,) = tables
    texts = [r.text for r in table.rows]
    assert len([t for t in texts if t.startswith("District")]) == 79
    assert not any(t.startswith("Region") or "(thousands)" in t for t in texts)


def test_same_multi_line_header_under_another_caption_on_a_facing_page_stays_apart():
    """Guard: the stretch is allowed only to a repeated header; "Table 5" on page 2 is
    another table, however alike its header."""
    _, decisions = _tables(_facing_scaled(0.9, caption_b="Table 5. Households by district"))
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not decision.joined


@pytest.mark.parametrize(
    "note", ["See notes at end of table.", "Voir les notes à la fin du tableau.",
             "Anmerkungen am Ende der Tabelle."]
)
def test_short_note_closing_the_page_joins_when_the_next_title_says_continued(note):
    """A short note under the last row ("See notes at end of table", in any language) is
    no text between when the next page's title says the table goes on ("…—Continued"):
    the continuation marker vouches for the join (no sentence of any one PDF is needed)."""
    tables, decisions = _tables(_facing_scaled(1.0, note=note))
    assert all(d.joined for d in decisions), [d.reason for d in decisions]
    assert len(tables) == 1


def test_short_note_closing_the_page_keeps_apart_without_a_continued_title():
    """Guard: without "Continued" on the next page the same note is text after the table."""
    pdf = _facing_scaled(1.0, caption_b="Table 4. Population and income by district",
                         note="Voir les notes à la fin du tableau.")
    _, decisions = _tables(pdf)
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not decision.joined and "text after the table" in decision.reason


# Class b: a table inside three-column prose whose lines are as wide as the columns, so
# that every text line of the page holds a piece of each column.


def _register_page_prose(column: float, top: float, bottom: float, seed: int) -> list:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    words = ["agency", "estimates", "burden", "respondents", "comments", "rule", "hours",
             "information", "collection", "proposed", "annual", "costs", "the", "of", "for"]
    items, n = [], seed
    while top < bottom:
        line: list[str] = []
        k = 0
        while stringWidth(" ".join([*line, words[(n + 4 * k) % len(words)]]), "Helvetica", 7) < 170:
            line.append(words[(n + 4 * k) % len(words)])
            k += 1
        items.append((column, top, " ".join(line)))
        top += 10
        n += 3
    return items


def _register(title: str, title_b: str) -> bytes:
    cols = [36.0, 222.0, 408.0]
    head = [["Activity", "Respondents", "Hours"]]
    rows = [[f"Form {i} review", f"{100 + 7 * i}", f"{120 + 9 * i:,}"] for i in range(1, 40)]
    running = "Federal Register / Vol. 89, No. 12 / Proposed Rules"
    p1 = [(36, 20, running), (290, 810, "2301")]
    p1 += _register_page_prose(cols[0], 50, 780, 1) + _register_page_prose(cols[1], 50, 780, 2)
    p1 += _register_page_prose(cols[2], 50, 450, 3) + [(cols[2], 470, title)]
    items, _ = table_items(head + rows[:24], [408.0, 490.0, 540.0], 490, step=11)
    p2 = [(36, 20, running), (290, 810, "2302"), (cols[0], 50, title_b)]
    body, top = table_items(head + rows[24:], [36.0, 118.0, 168.0], 70, step=11)
    p2 += body + _register_page_prose(cols[0], top + 20, 780, 4)
    p2 += _register_page_prose(cols[1], 50, 780, 5) + _register_page_prose(cols[2], 50, 780, 6)
    return drawn_pdf([[*p1, *items], p2], font_size=7)


@pytest.mark.parametrize(
    "continued", ["—Continued", " (cont.)", " (suite)", " (Fortsetzung)", " (continuación)"]
)
def test_table_in_three_column_prose_continued_under_its_title_joins(continued):
    """The table closes the third column of page 1 and goes on at the top of page 2's first
    column under "TABLE 2—…—Continued" (any continuation marker), header repeated. Each
    text line of the page also holds the other columns' prose: the page is read column by
    column, the table found inside its column, and the fragments join — all 39 rows."""
    title = "TABLE 2—ESTIMATED ANNUAL BURDEN"
    tables, decisions = _tables(_register(title, title + continued))
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert decision.joined, decision.reason
    (table,) = [t for t in tables if t.page_start == 1 and t.page_end == 2]
    texts = [r.text for r in table.rows]
    assert [t.split(" review")[0] for t in texts] == [f"Form {i}" for i in range(1, 40)]
    assert all(len(t.split()) == 5 for t in texts)  # no prose of the other columns in a row


def test_prose_beside_a_joined_table_in_a_column_stays_in_the_page_passage():
    """The text lines a column's table shares with the other columns' prose stay in the
    page passages (only lines wholly the table's leave them): no sentence is lost."""
    from ragdash.ingestion.ingest import read_pdf
    from ragdash.ingestion.inspection import as_document
    from ragdash.ingestion.segmentation import document_passages

    title = "TABLE 2—ESTIMATED ANNUAL BURDEN"
    doc = as_document(read_pdf(_register(title, title + "—Continued")), "register")
    passages = document_passages(doc, join_tables=True)
    table = [p for p in passages if p.kind != "page"]
    pages = [p for p in passages if p.kind == "page"]
    assert any("Form 24 review 268 336" in p.text for p in table)
    shared = [  # page 1's lines holding a row and the prose of the other columns
        line for line in doc.pages[0].splitlines()
        if " review " in line and len(line.split()) > 5
    ]
    (page1,) = [p for p in pages if p.page_start == 1]
    assert shared and all(line in page1.text for line in shared)


def test_table_in_three_column_prose_under_another_table_number_stays_apart():
    """Guard: page 2's column opens with "TABLE 3—…" (another table), same header."""
    _, decisions = _tables(
        _register("TABLE 2—ESTIMATED ANNUAL BURDEN", "TABLE 3—ESTIMATED ANNUAL COSTS")
    )
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not decision.joined


def _register_across(title_b: str) -> bytes:
    """A register page in three prose columns with a cost table set across the page under
    them (its cells run over the column gutters), continued at the top of page 2 under
    ``title_b`` with its header repeated, the prose resuming under it."""
    cols = [36.0, 222.0, 408.0]
    xs = [45.0, 195.0, 342.0, 420.0, 498.0]
    head = [["Action", "Labor cost", "Parts cost", "Cost per product", "Cost on operators"]]
    rows = [
        [f"Step {i} installation and verification", f"{i} work-hours × $85 per hour = ${85 * i}",
         "$0", f"${85 * i}", f"${6205 * i:,}"]
        for i in range(1, 9)
    ]
    running = "Federal Register / Vol. 85, No. 152 / Proposed Rules"
    p1 = [(36, 20, running), (290, 810, "47702")]
    for k, col in enumerate(cols):
        p1 += _register_page_prose(col, 50, 630, k + 1)
    p1.append((266, 638, "ESTIMATED COSTS"))  # right under the prose, as a register sets it
    items, _ = table_items(head + rows[:4], xs, 652, step=11)
    p2 = [(36, 20, running), (290, 810, "47703"), (238, 50, title_b)]
    body, top = table_items(head + rows[4:], xs, 70, step=11)
    for k, col in enumerate(cols):
        p2 += _register_page_prose(col, top + 20, 780, k + 4)
    return drawn_pdf([[*p1, *items], [*p2, *body]], font_size=7)


def test_table_across_the_page_under_three_prose_columns_joins_under_continued_title():
    """The table is set across the page under the three prose columns: each row is read
    whole (a cell running over a gutter is no piece of one column), the prose above is no
    row of it, and page 2's "ESTIMATED COSTS—Continued" fragment joins it: 8 steps."""
    tables, decisions = _tables(_register_across("ESTIMATED COSTS—Continued"))
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert decision.joined, decision.reason
    (table,) = [t for t in tables if t.page_start == 1 and t.page_end == 2]
    steps = [r.text.split(" installation")[0] for r in table.rows if r.text.startswith("Step")]
    assert steps == [f"Step {i}" for i in range(1, 9)]
    assert not any("agency" in r.text or "burden" in r.text for r in table.rows)


def test_table_across_the_page_under_prose_columns_with_another_title_stays_apart():
    """Guard: page 2 opens "TABLE 3—…", another table with the same header."""
    _, decisions = _tables(_register_across("TABLE 3—ESTIMATED COSTS FOR OPERATORS"))
    first = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not first or not first[0].joined


def _ruled_pages(xs_b: tuple = (60, 320, 440, 560)) -> bytes:
    """A ruled statement over two pages. Page 1 sets its text at the left of each cell;
    page 2 (rules at ``xs_b``) indents its labels and sets its first figures flush right,
    so its text starts elsewhere in two columns, by different amounts."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    _, height = A4
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    first = [["项目", "本期发生额", "上期发生额"]]
    first += [[label, _amount(i), _amount(i + 50)] for i, label in enumerate(LABELS)]
    later = [[label, _amount(i + 200), _amount(i + 300)] for i, label in enumerate(AFTER)]
    for page, (xs, rows) in enumerate((((60, 320, 440, 560), first), (xs_b, later)), 1):
        canvas.setFont("STSong-Light", 10)
        canvas.drawString(60, height - 30, "示例股份有限公司 2024 年第三季度报告")
        y = 70.0
        for row in rows:
            canvas.line(xs[0], height - y, xs[-1], height - y)
            if page == 1:
                for k, cell in enumerate(row):
                    canvas.drawString(xs[k] + 4, height - y - 14, cell)
            else:
                canvas.drawString(xs[0] + 40, height - y - 14, row[0])
                canvas.drawRightString(xs[2] - 4, height - y - 14, row[1])
                canvas.drawString(xs[2] + 4, height - y - 14, row[2])
            y += 20
        canvas.line(xs[0], height - y, xs[-1], height - y)
        for x in xs:
            canvas.line(x, height - 70, x, height - y)
        canvas.drawString(260, height - 815, f"第 {page} 页 共 2 页")
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def test_ruled_pages_whose_text_sits_elsewhere_in_the_same_grid_join():
    """Page 2 of the statement indents its labels and sets its first figures flush right:
    its text starts nowhere near page 1's (by a different amount in each column), yet
    both pages are the same ruled grid — its rules are its columns — and they join."""
    tables, decisions = _tables(_ruled_pages())
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert decision.joined, decision.reason
    (table,) = tables
    assert len(table.rows) == len(LABELS) + len(AFTER)


def test_ruled_pages_with_other_rules_still_need_their_text_to_line_up():
    """Guard: page 2's grid draws other columns (rules at other places) and its text
    starts elsewhere too: the columns differ and the pages stay apart."""
    _, decisions = _tables(_ruled_pages(xs_b=(60, 380, 470, 560)))
    (decision,) = [d for d in decisions if (d.page_a, d.page_b) == (1, 2)]
    assert not decision.joined
