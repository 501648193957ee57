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


def test_train_all_runs_every_model_in_turn_with_its_own_report(monkeypatch, capsys):
    import vision.train.__main__ as train_main

    calls = []
    monkeypatch.setattr(train_main, "_run", lambda args: calls.append(vars(args).copy()))
    assert train_main.main(["all", "--epochs", "2", "--adapt", "IMG2019:0.5",
                            "--report", "x.md"]) == 0
    assert [c["name"] for c in calls] == list(registry.MODELS)
    assert all(c["epochs"] == 2 and c["report"] is None for c in calls)
    assert [c["adapt"] for c in calls] == [
        "IMG2019:0.5" if registry.MODELS[c["name"]].real_dice_head else None for c in calls]
    assert "; all " in capsys.readouterr().out


def test_stone_model_reads_kind_digit_and_side():
    spec = registry.get("stone")
    assert spec.heads == {"kind": ("white", "blue", "red", "black", "orange", "empty"),
                          "digit": ("2", "3", "4", "5", "6"), "side": ("active", "inactive")}
    assert spec.grey_heads == ("digit",)


def test_a_trial_source_replaces_the_registrys_for_one_model(capsys):
    import vision.train.__main__ as train_main

    # the source named is the one sought (before anything is rendered or trained)
    assert train_main.main(["symbol", "--source", "no.such:thing", "--no-cache"]) == 2
    assert "crop source 'no.such:thing' of model 'symbol' is not available" in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit) as stop:
        train_main.main(["all", "--source", "vision.train.sources:cube_faces_and_cuts"])
    assert stop.value.code == 2
    assert "--source is one model's" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, seed", [(["height"], 0), (["pips"], 1), (["height", "--seed", "5"], 5)])
def test_the_registrys_seed_is_the_default_and_seed_overrides_it(monkeypatch, argv, seed):
    # the plain command reproduces the shipped file: it trains with the seed it was trained on
    import vision.train.__main__ as train_main

    specs = []
    monkeypatch.setattr(train_main, "_run", lambda args: specs.append(train_main._spec(args)))
    assert train_main.main(argv) == 0
    assert [s.seed for s in specs] == [seed]
