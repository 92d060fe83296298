"""Letter-spaced lines are rebuilt; spaced operators and table columns are left alone."""

from __future__ import annotations

from ragdash.ingestion.letterspacing import repair_line


def chars(spec: list[tuple[str, float]], width: float = 6.0) -> list[dict]:
    """Characters at the given x0, each ``width`` wide, 11 pt high."""
    return [{"text": t, "x0": x, "x1": x + width, "top": 0.0, "bottom": 11.0} for t, x in spec]


def spaced(text: str, gap: float, start: float = 72.0, width: float = 6.0) -> list[dict]:
    out, x = [], start
    for ch in text:
        if ch == " ":
            x += 3 * gap
            continue
        out.append((ch, x))
        x += width + gap
    return chars(out, width)


def test_a_letter_spaced_date_is_rejoined():
    line = "0 9 / 1 8 / 2 0 15"
    assert repair_line(line, spaced("09/18/2015", 4.0)) == "09/18/2015"


def test_words_inside_a_letter_spaced_line_stay_apart():
    assert repair_line("R E F - 4 2 D U E", spaced("REF-42 DUE", 4.0)) == "REF-42 DUE"


def test_spaced_operators_are_not_letter_spacing():
    formula = chars([("•", 85), ("q", 120.5), ("=", 130.3), ("1", 142), ("–", 151.9),
                     ("p", 161.8), ("=", 171.5), ("0", 183.2), (",", 189.6), ("5", 193.2),
                     ("0", 199.6)])  # fmt: skip
    assert repair_line("• q = 1 – p = 0,50", formula) == "• q = 1 – p = 0,50"


def test_table_columns_of_single_digits_are_not_letter_spacing():
    columns = chars([("Y", 40), ("1", 200), ("2", 240), ("3", 280), ("4", 320), ("5", 360)])
    assert repair_line("Y 1 2 3 4 5", columns) == "Y 1 2 3 4 5"


def test_an_ordinary_line_is_untouched():
    assert repair_line("Shipments by region", []) == "Shipments by region"
