"""``evaluate.load("<name>")`` and ``evaluate.load("nlgmetrics/<name>")`` offline after the one
install step (``nlgmetrics install-evaluate``, i.e. ``nlgmetrics.integrations.evaluate.main``),
from an empty directory with a fresh Hugging Face cache, in a separate process (evaluate reads
its cache location when imported)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import nlgmetrics
from nlgmetrics.integrations import evaluate_install as evaluate_support

pytest.importorskip("evaluate")

CHECK = textwrap.dedent('''
    import json
    import evaluate, nlgmetrics
    from evaluate.loading import evaluation_module_factory
    from nlgmetrics import registry
    from nlgmetrics.integrations import evaluate_install as evaluate_support

    assert evaluate_support.main([]) == 0          # the documented step
    out = {"resolved": {}, "loaded": {}, "scored": {}}
    for name in sorted(nlgmetrics.REGISTRY):
        for path in (name, "nlgmetrics/" + name):
            out["resolved"][path] = evaluation_module_factory(path).module_path
            try:
                nlgmetrics.scorer_class(name)
            except TypeError:                       # not on the configuration API yet
                continue
            out["loaded"][path] = type(evaluate.load(path)).__name__
    # one metric scored end to end (cheap: TextEval on word counts, no model)
    example = registry.example("texteval")
    for path in ("texteval", "nlgmetrics/texteval"):
        got = evaluate.load(path, "words").compute(**example.inputs)
        core = nlgmetrics.score("texteval", **example.inputs, features="words")
        out["scored"][path] = [got["scores"], core.scores, got["signature"] == core.signature]
    print("RESULT " + json.dumps(out))
''')


def test_load_by_name_offline_after_install(tmp_path):
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf"), HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1")
    env.pop("HF_MODULES_CACHE", None)
    work = tmp_path / "empty"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-c", CHECK], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line[len("RESULT "):])
    for name in nlgmetrics.REGISTRY:
        assert result["resolved"][name].startswith(f"evaluate_modules.metrics.evaluate-metric--{name}.")
        assert result["resolved"][f"nlgmetrics/{name}"].startswith(f"evaluate_modules.metrics.nlgmetrics--{name}.")
    for path, cls in result["loaded"].items():
        assert cls.lower() == path.split("/")[-1]
    assert sorted(result["scored"]) == ["nlgmetrics/texteval", "texteval"]
    for path, (got, core, same_signature) in result["scored"].items():
        assert got == pytest.approx(core, abs=1e-9), path
        assert same_signature, path


def test_install_is_idempotent_and_newest_copy_wins(tmp_path):
    first = evaluate_support.install_modules(["sam"], cache=tmp_path)
    assert [p.relative_to(tmp_path).parts[:2] for p in first] == [
        ("metrics", "evaluate-metric--sam"), ("metrics", "nlgmetrics--sam")]
    assert all(p.read_bytes() == evaluate_support.module_script("sam").read_bytes() for p in first)
    assert all((p.parent / "__init__.py").is_file() and len(p.parent.name) == 64 for p in first)
    again = evaluate_support.install_modules(["sam"], cache=tmp_path)
    assert again == first and len(list((tmp_path / "metrics" / "nlgmetrics--sam").iterdir())) == 2  # hash dir + __init__


def test_install_refuses_unknown_names(tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown metric 'bleurt'"):
        evaluate_support.install_modules(["bleurt"], cache=tmp_path)
    with pytest.raises(SystemExit):
        evaluate_support.main(["bleurt"])
    assert "unknown metric 'bleurt'" in capsys.readouterr().err
