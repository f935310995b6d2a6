"""The Python module against the CLI: the README's published examples, set equality of
``tmd.search`` with ``tmd search --json`` on random windows, a crunch of a planted wrong
function through ``c:``, the CLI's error lines as exceptions, bounded memory over many cases,
Ctrl-C, the GIL released, and the Python examples of the guide run as written.

The CLI is ``target/release/tmd`` (``TMD_BIN`` overrides it); scripts/test.sh builds both.
Small ranges only: the whole file runs in well under a minute on 2 cores.
"""

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

import tmd

ROOT = Path(__file__).resolve().parents[3]
TMD = os.environ.get("TMD_BIN", str(ROOT / "target" / "release" / "tmd"))


def cli(*args, check=True):
    """Runs the CLI; returns (status, stdout, stderr)."""
    p = subprocess.run([TMD, *args], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p.returncode, p.stdout, p.stderr


def cli_error(*args):
    """The CLI's error line (without `tmd: `) and its exit status."""
    status, _, err = cli(*args, check=False)
    lines = [line for line in err.splitlines() if line.startswith("tmd: ")]
    return status, lines[-1][len("tmd: "):]


# --------------------------------------------------------------------------------------------
# Published examples (README.md)


def test_readme_hardness_example():
    h = tmd.hardness("exp", "0x1.aca7ae8da5a7bp+0")
    assert h.json["y"] == "0x1.557d4acd7e557p+2"
    assert (h.json["rd"], h.json["ru"], h.json["rz"]) == (
        "0x1.557d4acd7e556p+2",
        "0x1.557d4acd7e557p+2",
        "0x1.557d4acd7e556p+2",
    )
    assert (h.kind, h.bits, h.k) == ("nearest", 54.992, 53)
    assert h.x == float.fromhex("0x1.aca7ae8da5a7bp+0")
    assert h.rounded("down") == float.fromhex("0x1.557d4acd7e556p+2")
    # The same input as a float, a Fraction and a list.
    assert tmd.hardness("exp", h.x) == h
    assert tmd.hardness("exp", Fraction(h.x)) == h
    assert tmd.hardness("exp", [h.x, 1.5])[0] == h


def test_readme_search_example():
    # README: `tmd search exp --from 1.5 --to 0x1.8001p+0 --bits 34`: 17 cases, the first two
    # 0x1.8000006442859p+0 (nearest, k=33, bits=34.337) and 0x1.80000464eea2bp+0.
    search = tmd.search("exp", 1.5, "0x1.8001p+0", bits=34)
    cases = list(search)
    assert len(cases) == 17
    assert all(isinstance(c, tmd.Case) for c in cases)
    first, second = cases[:2]
    assert first.json["x"] == "0x1.8000006442859p+0"
    assert (first.kind, first.k, first.bits) == ("nearest", 33, 34.337)
    assert second.json["x"] == "0x1.80000464eea2bp+0"
    assert any("17 hard-to-round (K = 34, all)" in m for m in search.messages)


def test_readme_plan_example():
    # README: `tmd search exp --from 0x1p-30 --to 0x1p-28 --bits 45 --plan` has 2 pieces.
    plan = tmd.plan("exp", "0x1p-30", "0x1p-28", bits=45)
    assert plan.summary.startswith("plan of exp in binary64 [0x1p-30, 0x1p-28): 2 pieces")
    _, out, _ = cli("search", "exp", "--from", "0x1p-30", "--to", "0x1p-28", "--bits", "45",
                    "--plan", "--json")
    theirs = [json.loads(line) for line in out.splitlines()]
    fixed = ("from", "to_last", "inputs", "method", "degrees", "domain_sizes")
    assert [{k: p[k] for k in fixed} for p in plan.pieces] == [{k: p[k] for k in fixed} for p in theirs]
    assert plan.projected_seconds > 0


def test_functions_match_the_cli():
    _, out, _ = cli("functions")
    names = [line.split()[0] for line in out.splitlines()[1:] if line and line[0].isalpha()]
    listed = [f.name for f in tmd.functions()]
    assert listed[: len(names)] == names[: len(listed)]
    assert "exp" in listed and "log" in listed


# --------------------------------------------------------------------------------------------
# Set equality with the CLI on random windows


def window_cases(fmt, func, lo, hi, bits, breakpoints):
    py = [c.json for c in tmd.search(func, lo, hi, bits=bits, breakpoints=breakpoints, format=fmt)]
    _, out, _ = cli(
        "search", func, "--from", lo, "--to", hi, "--bits", str(bits), "--breakpoints",
        breakpoints, "--format", fmt, "--json", "-q",
    )
    return py, [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("seed", range(4))
def test_search_equals_cli_on_random_windows(seed):
    # The same range ends go to both as text: decimals and binary64 numbers that are not
    # numbers of the format are rounded by the job itself, in both.
    rng = random.Random(seed)
    func = rng.choice(["exp", "log", "sin", "cbrt", "x*exp(x)"])
    fmt, width, bits = rng.choice(
        [("binary32", 1 << 16, 18), ("binary64", 1 << 28, 34), ("binary16", 1 << 10, 9)]
    )
    precision = {"binary16": 11, "binary32": 24, "binary64": 53}[fmt]
    lo = rng.uniform(0.6, 3.0)
    hi = lo * (1 + width / 2**precision)
    breakpoints = rng.choice(["all", "directed", "nearest"])
    py, ours = window_cases(fmt, func, float.hex(lo), float.hex(hi), bits, breakpoints)
    assert py == ours
    assert len({json.dumps(c, sort_keys=True) for c in py}) == len(py)


def test_range_records_equal_the_cli():
    # docs/definitions.md's range record: exp next to 0 in binary32, where a proven rule
    # makes every input of a binade hard (f(x) next to 1).
    py, ours = window_cases("binary32", "exp", "0x1p-60", "0x1p-58", 24, "all")
    assert py == ours
    published = {"function": "exp", "format": "binary32", "record": "range",
                 "x_from": "0x1p-60", "x_to": "0x1.fffffep-60", "inputs": 8388608,
                 "kind": "directed", "bits_at_least": 35.999, "rule": "next-to-constant",
                 "anchor": "0x1p+0"}
    assert ours[0] == published
    record = next(iter(tmd.search("exp", "0x1p-60", "0x1p-58", bits=24, format="binary32")))
    assert isinstance(record, tmd.RangeRecord)
    assert (record.x_from, record.inputs, record.anchor) == (2.0**-60, 8388608, 1.0)


# --------------------------------------------------------------------------------------------
# Crunch of a planted wrong function through c:


PLANTED = r"""
#include <math.h>
#include <string.h>
/* expf, three ulps too high at x = 0.5 only */
float planted_expf(float x) {
  float y = expf(x);
  if (x == 0.5f) { unsigned u; memcpy(&u, &y, 4); u += 3; memcpy(&y, &u, 4); }
  return y;
}
"""


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    src = tmp_path_factory.mktemp("planted") / "planted.c"
    src.write_text(PLANTED)
    return f"c:{src}:planted_expf"


def test_crunch_finds_the_planted_error(planted):
    report = tmd.crunch(planted, 0.5, 0.75, function="exp")
    assert report.worse == 1 and report.argmax == 0.5
    assert report.argmax_expected == float.fromhex("0x1.a61298p+0")
    assert report.correctly_rounded + report.faithful + report.worse == report.inputs == 1 << 22
    _, out, _ = cli("crunch", planted, "--function", "exp", "--from", "0.5", "--to", "0.75", "--json", "-q")
    theirs = json.loads(out)
    for key in ("inputs", "max_ulp", "argmax", "correctly_rounded", "faithful", "worse", "histogram"):
        assert report.json[key] == theirs[key], key


def test_crunch_lists_the_wrong_inputs_of_a_list(planted):
    report = tmd.crunch(planted, inputs=[0.5, 0.75, "0x1p-1"], function="exp")
    assert [w.x for w in report.wrong] == [0.5, 0.5]
    assert [w.line for w in report.wrong] == [1, 3]
    assert report.wrong[0].klass == "worse than faithful"
    with pytest.raises(tmd.GateError) as gate:
        tmd.crunch(planted, inputs=[0.5], function="exp", max_ulp=0.5)
    assert gate.value.reports[0].worse == 1
    modes = tmd.crunch(planted, inputs=[0.5], function="exp", rounding="all")
    assert [r.rounding for r in modes] == ["nearest", "up", "down", "zero"]


# --------------------------------------------------------------------------------------------
# Errors: the CLI's lines as exceptions


@pytest.mark.parametrize(
    "call, args",
    [
        (lambda: tmd.search("nosuch", 1, 2), ["search", "nosuch", "--from", "1", "--to", "2"]),
        (lambda: tmd.search("exp", 2, 1), ["search", "exp", "--from", "2", "--to", "1"]),
        (lambda: tmd.search("exp", 1, 2, format="binary33"),
         ["search", "exp", "--from", "1", "--to", "2", "--format", "binary33"]),
        (lambda: tmd.hardness("exp", 0.1, format="binary32"),
         ["hardness", "exp", "0x1.999999999999ap-4", "--format", "binary32"]),
        (lambda: tmd.crunch("std:nosuch", 1, 2), ["crunch", "std:nosuch", "--from", "1", "--to", "2"]),
    ],
)
def test_errors_carry_the_cli_line(call, args):
    status, line = cli_error(*args)
    assert status == 2
    with pytest.raises(tmd.InputError) as err:
        call()
    assert str(err.value) == line
    assert isinstance(err.value, tmd.TmdError)


# --------------------------------------------------------------------------------------------
# Streaming: memory, stopping, Ctrl-C, the GIL


def test_memory_stays_bounded_over_many_cases():
    # K = 6 in binary32: about one input in 32 is a case, 2^18 cases in [1, 2). The module
    # keeps none of them: each line waits in the bounded channel until it is read, and the
    # Python heap holds only the case being looked at (the job's own buffers are bounded by
    # the job: crates/tmd/tests/memory.rs). Kept, 2^14 cases would take about 10 MB.
    import tracemalloc

    with tmd.search("exp", 1, 2, bits=6, format="binary32") as search:
        for _ in range(1 << 10):
            next(search)
        tracemalloc.start()
        try:
            for _ in range(1 << 14):
                next(search)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_close_stops_a_long_search():
    search = tmd.search("exp", "-inf", "inf", bits=12, format="binary32", chunk_bits=16)
    next(search)
    started = time.monotonic()
    search.close()
    assert time.monotonic() - started < 10
    with pytest.raises(StopIteration):
        next(search)


CTRL_C = {
    "search": 'for case in tmd.search("exp", "-inf", "inf", bits=40, format="binary32"): pass',
    "crunch": 'tmd.crunch("std:expf", "-inf", "inf")',
}


@pytest.mark.parametrize("job", sorted(CTRL_C))
def test_ctrl_c_raises_keyboard_interrupt(job):
    script = f"import tmd\nprint('started', flush=True)\n{CTRL_C[job]}\n"
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    started = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert "KeyboardInterrupt" in err
    assert p.returncode != 0
    assert time.monotonic() - started < 10


def test_progress_only_when_asked():
    script = (
        "import tmd\n"
        "list(tmd.search('exp', 1, 2, bits=20, format='binary32'))\n"
        "list(tmd.search('exp', 1, 2, bits=20, format='binary32', progress=True))\n"
    )
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    # Only the second search speaks: its count line, as the CLI prints it.
    lines = [line for line in p.stderr.splitlines() if line.startswith("tmd: exp in binary32")]
    assert len(lines) == 1, p.stderr


def test_the_gil_is_released_while_a_job_runs(planted):
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    tmd.crunch(planted, 1, 1.25, function="exp")
    done.set()
    t.join()
    assert ticks > 20


# --------------------------------------------------------------------------------------------
# Numbers


def test_wide_formats_give_exact_hex_strings():
    h = tmd.hardness("exp", "0x1.8p+0", format="binary128")
    assert isinstance(h.y, str) and h.y.startswith("0x1.1ed3fe64fc54157db9196350fa7")
    assert tmd.exact(h.rd) < tmd.exact(h.ru)
    assert tmd.exact("0x1.8p+0") == Fraction(3, 2)
    pytest.importorskip("mpmath")
    y = tmd.exact(h.y, "mpmath")  # exactly, with the 113 bits it needs
    man, exp = y.man_exp
    assert man * Fraction(2) ** exp == tmd.exact(h.y)
    # An mpf goes in exactly too.
    assert tmd.hardness("exp", tmd.exact(h.x, "mpmath"), format="binary128") == h


# --------------------------------------------------------------------------------------------
# The guide's and README's Python examples run as written


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


@pytest.mark.parametrize("doc", ["docs/guide/python.md", "README.md"])
def test_documented_examples_run(doc, tmp_path, monkeypatch, planted):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(ROOT / doc)
    assert blocks, doc
    scope = {"PLANTED_TARGET": planted}
    for block in blocks:
        exec(compile(block, doc, "exec"), scope)
