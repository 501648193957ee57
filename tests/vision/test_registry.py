import pytest

from vision.train import registry


def test_pips_model_reads_nine_counts_and_three_colours():
    spec = registry.get("pips")
    assert spec.heads == {"pips": tuple("123456789"), "colour": ("blue", "red", "black")}
    assert spec.input.channels == 3 and spec.grey_heads == ("pips",)


def test_unknown_model_names_the_known_ones():
    with pytest.raises(LookupError, match="known: pips"):
        registry.get("dragon")


def test_label_indices_map_and_ignore():
    spec = registry.get("pips")
    out = registry.label_indices(spec, {"pips": ["1", "9", "5"], "colour": ["red", None, "blue"]})
    assert out["pips"].tolist() == [0, 8, 4]
    assert out["colour"].tolist() == [1, -100, 0]
    with pytest.raises(ValueError, match=r"unknown labels \['10'\]"):
        registry.label_indices(spec, {"pips": ["10"], "colour": [None]})
    with pytest.raises(ValueError, match="no labels for head 'colour'"):
        registry.label_indices(spec, {"pips": ["1"]})


def test_missing_crop_source_is_a_clear_error():
    spec = registry.ModelSpec("x", {"a": ("0",)}, registry.get("pips").input, "no.such:thing")
    with pytest.raises(LookupError, match="crop source 'no.such:thing' of model 'x'"):
        spec.crop_source()
