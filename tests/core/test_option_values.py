"""Option values and the unclear errors of issue 37: numbers given as numpy scalars, bools
and overflowing integers, mapping options (empty, non-string keys, non-finite values), a local
model directory without a checkpoint, the environment variables the package reads, and uint64
token ids in the Trainer hook. Each bad value is one line naming the option or variable."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from nlgmetrics.datscore.config import DATScoreConfig
from nlgmetrics.rome.config import RoMeConfig
from nlgmetrics.sam.config import SAMConfig


def _one_line_error(make, *names):
    with pytest.raises(ValueError) as info:
        make()
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    for name in names:
        assert name in message, message
    return message


@pytest.mark.parametrize("value", [np.int64(8), np.int32(8), np.uint64(8), 8.0, np.float64(8.0), Fraction(8)])
def test_integer_options_take_any_integral_number(value):
    config = RoMeConfig(batch_size=value, max_words=value)
    assert config.batch_size == 8 and type(config.batch_size) is int
    assert config.key() == RoMeConfig(batch_size=8, max_words=8).key()


@pytest.mark.parametrize("value", [True, np.bool_(True), 8.5, np.float32(8.5), "8", float("nan")])
def test_integer_options_refuse_bools_fractions_and_strings(value):
    _one_line_error(lambda: RoMeConfig(batch_size=value), "batch_size")


def test_float_options_take_numpy_floats_and_refuse_overflow_in_one_line():
    assert RoMeConfig(gamma=np.float32(0.5)).gamma == 0.5
    assert RoMeConfig(gamma=np.int64(3)).gamma == 3.0 and type(RoMeConfig(gamma=np.int64(3)).gamma) is float
    # was OverflowError: int too large to convert to float
    message = _one_line_error(lambda: RoMeConfig(gamma=10**400), "gamma", "[0, 100]")
    assert "beyond the float range" in message and "0000000000" not in message
    _one_line_error(lambda: SAMConfig(damping_k=-(10**400)), "damping_k")
    _one_line_error(lambda: RoMeConfig(max_words=10**400), "max_words", "[1, 320]")  # no 400-digit echo
    _one_line_error(lambda: RoMeConfig(delta_emd=float("inf")), "delta_emd", "finite")


@pytest.mark.parametrize("make, names", [
    (lambda: DATScoreConfig(direction_weights={}), ("direction_weights", "no entries")),
    (lambda: DATScoreConfig(direction_weights={"ref->hypo": float("nan")}), ("direction_weights", "ref->hypo")),
    (lambda: DATScoreConfig(direction_weights={"ref->hypo": 10**400}), ("direction_weights", "finite")),
    (lambda: DATScoreConfig(direction_weights={1: 1.0}), ("direction_weights", "keys must be strings")),
    (lambda: SAMConfig(lexicon={}), ("lexicon", "no entries")),
    (lambda: SAMConfig(lexicon={("good", "a"): 0.5}), ("lexicon", "keys must be strings")),
    (lambda: SAMConfig(lexicon={"good#a": float("nan")}), ("lexicon", "good#a")),
    (lambda: SAMConfig(lexicon={"good#a": 2.0}), ("lexicon", "good#a", "[-1, 1]")),
])
def test_mapping_options_are_checked_when_the_configuration_is_built(make, names):
    _one_line_error(make, *names)


def test_good_mappings_are_kept():
    assert dict(DATScoreConfig(direction_weights={"ref->hypo": np.float32(2)}).direction_weights) == {"ref->hypo": 2.0}
    assert dict(SAMConfig(lexicon={"good#a": np.float64(0.5)}).lexicon) == {"good#a": 0.5}


def test_a_local_directory_without_a_model_is_not_blamed_on_the_hub(tmp_path):
    """``model="/etc"`` said the hub could not be reached; a directory is never fetched."""
    from transformers import AutoTokenizer

    from nlgmetrics.core.models import ModelUnavailableError, load_pretrained

    with pytest.raises(ModelUnavailableError) as info:
        load_pretrained(AutoTokenizer, str(tmp_path), what="encoder tokenizer")
    message = str(info.value)
    assert str(tmp_path) in message and "no model checkpoint" in message and "hub cannot" not in message
    (tmp_path / "config.json").write_text('{"not": "a model"}')
    with pytest.raises(ModelUnavailableError) as info:
        load_pretrained(AutoTokenizer, str(tmp_path), what="encoder tokenizer")
    message = str(info.value)
    assert str(tmp_path) in message and "could be loaded" in message and "hub cannot" not in message
    assert "\n" not in message


def test_environment_variables_are_named_in_their_errors(monkeypatch, tmp_path):
    from nlgmetrics.core.linguistic import get_analyzer
    from nlgmetrics.core.models import is_offline
    from nlgmetrics.core.resources import cache_dir
    from nlgmetrics.space.limits import Limits

    monkeypatch.setenv("NLGMETRICS_LINGUISTIC", "spacey")  # was: unknown linguistic backend 'spacey'
    _one_line_error(lambda: get_analyzer("auto"), "NLGMETRICS_LINGUISTIC", "spacy")
    monkeypatch.delenv("NLGMETRICS_LINGUISTIC")
    a_file = tmp_path / "file"
    a_file.write_text("")
    monkeypatch.setenv("NLGMETRICS_CACHE", str(a_file))  # was: FileExistsError without the variable
    _one_line_error(cache_dir, "NLGMETRICS_CACHE", "not a directory")
    monkeypatch.setenv("NLGMETRICS_CACHE", str(tmp_path / "cache"))
    assert cache_dir() == tmp_path / "cache" and cache_dir().is_dir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "maybe")  # was: silently online
    _one_line_error(is_offline, "HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert is_offline()
    monkeypatch.setenv("NLGMETRICS_SPACE_MAX_SEGMENTS", "lots")  # was: the default, silently
    _one_line_error(Limits.from_env, "NLGMETRICS_SPACE_MAX_SEGMENTS")
    monkeypatch.setenv("NLGMETRICS_SPACE_MAX_SEGMENTS", "7")
    assert Limits.from_env().segments == 7


def test_unsigned_token_ids_in_the_trainer_hook():
    """uint64 predictions: the end-of-sequence cut wrote -1 into them (OverflowError)."""
    from transformers import AutoTokenizer

    from nlgmetrics.core.models import lite_encoder_path
    from nlgmetrics.integrations.transformers import compute_metrics_fn

    tok = AutoTokenizer.from_pretrained(lite_encoder_path())
    ids = np.array(tok(["a good day", "a bad day it was"], padding=True)["input_ids"])
    assert tok.sep_token_id in ids[0]
    tok.eos_token = tok.sep_token
    hook = compute_metrics_fn("sam", tok, base="chrf")
    plain = hook((ids, ids))
    shifted = ids.copy()
    shifted[1, 2] = ids[0, 2]  # a different second hypothesis: the score is not trivially 100
    expected = hook((shifted, ids))
    assert not math.isclose(expected["sam"], 100.0)
    for dtype in (np.uint64, np.uint32):
        assert hook((shifted.astype(dtype), ids.astype(dtype))) == expected
        assert hook((ids.astype(dtype), ids)) == plain
    huge = ids.astype(np.uint64)
    huge[1, 2] = np.uint64(2**64 - 1)  # would wrap to -1 ("no token") as int64
    _one_line_error(lambda: hook((huge, ids)), "predictions[1][2]", "18446744073709551615")
