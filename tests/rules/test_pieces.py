import pytest

from vision.rules import ALL_PIECES, ATTRIBUTES, VALUES, Piece, PieceParseError


def test_sixteen_distinct_pieces_cover_every_combination():
    combos = {tuple(p.attributes[a] for a in ATTRIBUTES) for p in ALL_PIECES}
    assert len(ALL_PIECES) == 16
    assert len(combos) == 16


@pytest.mark.parametrize("piece", ALL_PIECES)
def test_round_trips(piece):
    assert Piece.from_symbol(piece.symbol) == piece
    assert Piece.from_name(piece.name) == piece
    assert Piece.from_attributes(piece.attributes) == piece
    assert Piece.parse(str(piece.code)) == piece
    assert eval(repr(piece), {"Piece": Piece}) == piece


def test_names_follow_design_vocabulary():
    piece = Piece.from_symbol("DSTH")
    assert piece.attributes == {
        "color": "dark",
        "shape": "square",
        "height": "tall",
        "top": "hollow",
    }
    assert Piece.from_symbol("lrss").name == "light round short solid"
    for attr, values in VALUES.items():
        assert {p.value(attr) for p in ALL_PIECES} == set(values)


def test_name_in_any_order_and_extra_keys_ignored():
    assert Piece.from_name("hollow, tall square dark") == Piece.from_symbol("DSTH")
    attrs = dict(Piece.from_symbol("LRTS").attributes, confidence=0.9)
    assert Piece.from_attributes(attrs) == Piece.from_symbol("LRTS")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "DRT",
        "DRTHX",
        "XRTH",
        "DXTH",
        "DRXH",
        "DRTX",
        "dark round tall",
        "dark dark round tall",
        "dark round tall purple",
    ],
)
def test_parse_errors_quote_the_input(bad):
    with pytest.raises(PieceParseError) as info:
        Piece.parse(bad) if bad else Piece.from_symbol(bad)
    assert repr(bad)[1:-1] in str(info.value) or bad == ""


@pytest.mark.parametrize("code", [-1, 16, 3.0, True, "3"])
def test_bad_codes_rejected(code):
    with pytest.raises(PieceParseError):
        Piece(code)


def test_attributes_missing_or_wrong_value():
    with pytest.raises(PieceParseError, match="lacks attribute 'top'"):
        Piece.from_attributes({"color": "dark", "shape": "round", "height": "tall"})
    with pytest.raises(PieceParseError, match="color='grey'"):
        Piece.from_attributes({"color": "grey", "shape": "round", "height": "tall", "top": "solid"})
