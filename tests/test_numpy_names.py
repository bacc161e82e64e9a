"""The editor completes numpy's names from a list in the front end: each must exist in the numpy the sandbox runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

NAMES_JS = Path(__file__).resolve().parents[1] / "static" / "src" / "numpy-names.js"


def lists() -> dict[str, list[str]]:
    found = re.findall(r"^export const (\w+) = (\"[^\"]*\")\.split\(\" \"\);$", NAMES_JS.read_text(), re.MULTILINE)
    return {name: json.loads(text).split(" ") for name, text in found}


def test_every_completed_name_is_in_numpy() -> None:
    owners = {"NUMPY": np, "LINALG": np.linalg, "RANDOM": np.random, "GENERATOR": np.random.Generator}
    names = lists()
    assert set(names) == set(owners)
    missing = [f"{key}.{name}" for key, values in names.items() for name in values if not hasattr(owners[key], name)]
    assert not missing, f"numpy-names.js offers names numpy {np.__version__} lacks: {missing[:10]}"
    assert {"zeros", "einsum", "concatenate", "sqrt"} <= set(names["NUMPY"])
