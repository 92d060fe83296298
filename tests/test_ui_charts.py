"""Charts that say it at a glance (issue 29): lines that lie on top of each other are told
apart, and the page says so."""

from __future__ import annotations

import pandas as pd

from ragdash.ui.triage.calibration import (
    METRIC_DASHES,
    METRIC_SHAPES,
    calibration_chart,
    coinciding,
    presets_chart,
)


def _sweep() -> pd.DataFrame:
    # broken and false fuzzy matches are 0 at every threshold: one line hid the other
    return pd.DataFrame(
        {
            "threshold": [70.0, 80.0, 90.0],
            "repaired": [3, 2, 1],
            "broken": [0, 0, 0],
            "false_fuzzy_matches": [0, 0, 0],
            "repaired_cases": ["", "", ""],
            "broken_cases": ["", "", ""],
            "false_matches": ["", "", ""],
        }
    )


def _encodings(spec: dict) -> list[dict]:
    found = []
    for part in spec.get("layer", []) + spec.get("hconcat", []):
        found += _encodings(part)
    if "encoding" in spec:
        found.append(spec["encoding"])
    return found


def test_the_calibration_chart_tells_coinciding_lines_apart():
    """Issue 29 #7: the calibration chart hid one line under another."""
    spec = calibration_chart(_sweep(), 80.0).to_dict()
    encodings = _encodings(spec)
    dashes = [e["strokeDash"] for e in encodings if "strokeDash" in e]
    shapes = [e["shape"] for e in encodings if "shape" in e]
    assert dashes and shapes, "each measure has its own dash and point shape"
    assert dashes[0]["scale"]["range"] == list(METRIC_DASHES.values())
    assert len({str(d) for d in METRIC_DASHES.values()}) == len(METRIC_DASHES)
    assert len(set(METRIC_SHAPES.values())) == len(METRIC_SHAPES)
    # the chart itself names the lines that coincide
    assert "broken and false fuzzy matches: equal at every threshold" in " ".join(
        spec["title"]["subtitle"]
    )
    # and the second line of the pair is drawn a little higher, its tooltip the true count
    rows = next(iter(spec["datasets"].values()))
    lift = {r["measure"]: r["shown"] - r["count"] for r in rows}
    assert lift["broken"] == 0 < lift["false fuzzy matches"] < 0.2
    assert lift["repaired"] == 0


def test_coinciding_names_only_measures_equal_at_every_threshold():
    sweep = _sweep()
    assert coinciding(sweep) == [["broken", "false fuzzy matches"]]
    sweep.loc[1, "broken"] = 1
    assert coinciding(sweep) == []


def test_the_presets_chart_draws_its_points_side_by_side():
    presets = pd.DataFrame(
        {"rule": ["es-auto", "typos-5-9"], "description": ["a", "b"], "repaired": [5, 5],
         "broken": [0, 0], "false_fuzzy_matches": [0, 0]}
    )  # fmt: skip
    spec = presets_chart(presets, _sweep()).to_dict()
    assert spec["encoding"]["xOffset"]["field"] == "measure"
    assert spec["encoding"]["shape"]["scale"]["range"] == list(METRIC_SHAPES.values())
