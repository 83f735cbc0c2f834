"""The panel of tests/model_panel.py trains the same models, bit for bit, as those
whose array digests tests/data/model_panel.json records."""

import json

import pytest
from model_panel import PANEL_FILE, environment, panel_digests

pytestmark = pytest.mark.slow


def test_every_panel_model_is_bit_identical_to_the_recorded_one():
    record = json.loads(PANEL_FILE.read_text())
    if record["environment"] != environment():
        pytest.skip(
            "bit-for-bit results hold in the environment the panel was recorded "
            f"in, {record['environment']}; this is {environment()}"
        )
    digests = panel_digests()
    assert sorted(digests) == sorted(record["models"])
    different = [m for m, value in digests.items() if value != record["models"][m]]
    assert not different, f"{len(different)} models differ, first: {different[:10]}"
