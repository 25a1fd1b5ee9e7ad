import pytest

from vision.evaluation.knobs import replaced
from vision.locate.config import LocateConfig


def test_knobs_set_fields_from_literals_and_leave_the_rest():
    base = LocateConfig()
    config = replaced(base, ["line_marking_recheck=True", "min_board_score = 1.3"])
    assert config.line_marking_recheck is True
    assert config.min_board_score == pytest.approx(1.3)
    assert config.near_outline_search == base.near_outline_search
    assert replaced(base, []) == base


@pytest.mark.parametrize("pair", ["no_such_knob=1", "line_marking_recheck"])
def test_knobs_refuse_an_unknown_field_or_a_missing_value(pair):
    with pytest.raises(ValueError, match="NAME=VALUE"):
        replaced(LocateConfig(), [pair])
