from collections import Counter

import numpy as np
import pytest

from vision import real_dice


@pytest.fixture(scope="module")
def crops(shared_dir):
    return real_dice.load(shared_dir / "data" / "real-dice")


def test_loads_all_groups_with_labels(crops):
    groups = real_dice.by_group(crops)
    assert list(groups) == list(real_dice.GROUPS)
    assert {g: len(c) for g, c in groups.items()} == {"IMG2019": 1793, "other": 481, "IMGother": 58}
    assert {c.pips for c in crops} == set(range(1, 7))
    image = crops[0].image()
    assert image.ndim == 3 and image.shape[2] == 3 and min(image.shape[:2]) >= 24


def test_env_var_points_at_the_shared_folder(monkeypatch, shared_dir, tmp_path):
    monkeypatch.setenv(real_dice.ENV_VAR, str(shared_dir))
    assert real_dice.data_dir() == shared_dir / "data" / "real-dice"
    monkeypatch.setenv(real_dice.ENV_VAR, str(tmp_path))
    with pytest.raises(real_dice.RealDiceMissing, match="TABLEREF_SHARED"):
        real_dice.load()


def test_bad_row_is_named(tmp_path):
    (tmp_path / "labels.csv").write_text("file,pips,source\ncrops/a.png,six,IMG2019\n")
    with pytest.raises(real_dice.RealDiceMissing, match=r"labels.csv:2"):
        real_dice.load(tmp_path)


def test_split_is_stratified_disjoint_and_deterministic(crops):
    enrol, held = real_dice.split(crops, "IMG2019", 0.25)
    assert {c.source for c in enrol} == {"IMG2019"}
    assert not {c.path for c in enrol} & {c.path for c in held}
    assert len(enrol) + len(held) == len(crops)
    group = Counter(c.pips for c in crops if c.source == "IMG2019")
    chosen = Counter(c.pips for c in enrol)
    assert all(abs(chosen[p] - 0.25 * n) <= 0.5 for p, n in group.items())
    assert real_dice.split(crops, "IMG2019", 0.25) == (enrol, held)
    other_seed, _ = real_dice.split(crops, "IMG2019", 0.25, seed="other")
    assert other_seed != enrol
    # growing the fraction keeps the crops already chosen
    bigger, _ = real_dice.split(crops, "IMG2019", 0.5)
    assert {c.path for c in enrol} <= {c.path for c in bigger}


def test_split_rejects_unknown_group_and_bad_fraction(crops):
    with pytest.raises(ValueError, match="no crops of group"):
        real_dice.split(crops, "nope", 0.5)
    with pytest.raises(ValueError, match="fraction"):
        real_dice.split(crops, "other", 1.5)


def test_trained_split_of_several_groups(crops):
    training = real_dice.parse_adapt("IMG2019:0.25,other:0.5")
    assert training == [{"group": "IMG2019", "fraction": 0.25, "seed": "tableref"},
                        {"group": "other", "fraction": 0.5, "seed": "tableref"}]
    trained, held = real_dice.trained_split(crops, training)
    first, _ = real_dice.split(crops, "IMG2019", 0.25)
    second, _ = real_dice.split(crops, "other", 0.5)
    assert {c.path for c in trained} == {c.path for c in first} | {c.path for c in second}
    assert len(trained) + len(held) == len(crops)
    assert not {c.path for c in trained} & {c.path for c in held}
    assert real_dice.trained_split(crops, training[0])[0] == first
    assert real_dice.trained_split(crops, None) == ([], crops)
    with pytest.raises(ValueError, match="GROUP:FRACTION"):
        real_dice.parse_adapt("IMG2019:lots")


def test_shipped_pips_model_reads_real_crops_it_was_not_trained_on(crops):
    # a fast sample of the numbers in models/pips.md: every IMGother crop (never trained
    # on; 0.828 there) and every 4th held-out IMG2019 crop (0.715 on all 1,256), with the
    # classical blob counter below the model on the same crops
    from vision.classifier import Classifier
    from vision.pips_classical import count_pips
    from vision.train.evaluate import real_dice_held_out, real_dice_reports

    model = Classifier.load("pips")
    held = real_dice_held_out(model, crops)
    assert not {c.path for c in held} & {c.path for c in real_dice.trained_split(
        crops, model.real_dice_training)[0]}
    sample = [c for c in held if c.source == "IMGother"] + [
        c for c in held if c.source == "IMG2019"][::4]
    reports = real_dice_reports(model, sample)
    assert reports["IMGother"].accuracy >= 0.75 and reports["IMG2019"].accuracy >= 0.65
    classical = np.mean([count_pips(c.image()).pips == c.pips for c in sample])
    model_mean = sum(r.accuracy * r.count for r in reports.values()) / len(sample)
    assert model_mean > classical
