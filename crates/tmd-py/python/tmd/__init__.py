"""tmd from Python: hard-to-round cases of math functions, exactly, and the exact worst-case
error of implementations.

Every call runs the library job the command line runs (``tmd search``, ``tmd hardness``,
``tmd search --plan``, ``tmd crunch``, ``tmd functions``) with its JSON output, and returns
the CLI's JSON objects as typed objects; field names and meanings are those of
``docs/definitions.md`` (search, hardness) and ``docs/crunch.md`` (crunch). Each object keeps
the CLI's object itself in ``.json``, with every number as an exact hexadecimal string.

Numbers in
    A float, an int, a string (a hexadecimal float such as ``"0x1.8p+0"``, a decimal, ``"inf"``,
    ``"-inf"``), a ``fractions.Fraction`` or any object with ``as_integer_ratio()`` (gmpy2's
    ``mpfr``), or an ``mpmath.mpf``: dyadic values go to tmd exactly, as hexadecimal floats.
    As with the CLI, a search's or crunch's range ends are rounded to the format (with a note
    in ``messages``), and a hardness input must be a number of the format.

Numbers out
    In a format whose every number is a Python float (binary16, bfloat16, binary32, binary64,
    pN for N <= 53), inputs and results are floats, exactly. In binary80, binary128 and pN for
    N > 53 they are the exact hexadecimal strings; :func:`exact` turns one into a
    ``Fraction``, an ``mpmath.mpf`` or a ``gmpy2.mpfr`` without rounding.

Errors
    :class:`InputError` where the CLI exits 2 (bad input), :class:`JobError` where it exits 1,
    :class:`GateError` for a crunch that failed ``max_ulp``; the message is the CLI's one line
    (without its ``tmd:`` prefix).

Long calls release the GIL, stop on Ctrl-C (``KeyboardInterrupt``), and draw a progress bar on
stderr only with ``progress=True``.
"""

from __future__ import annotations

import json as _json
import os
import re
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from . import _tmd
from ._tmd import GateError, InputError, JobError, TmdError

__all__ = [
    "functions",
    "hardness",
    "search",
    "plan",
    "crunch",
    "exact",
    "Function",
    "Hardness",
    "Case",
    "RangeRecord",
    "Search",
    "Plan",
    "CrunchReport",
    "WrongInput",
    "TmdError",
    "InputError",
    "JobError",
    "GateError",
]

__version__: str = _tmd.__version__

#: A number of a format: a float where the format's numbers are floats, else a hex string.
Value = Union[float, str]
#: What a number may be given as (see the module's documentation).
NumberLike = Union[float, int, str, Fraction, Any]


# ---------------------------------------------------------------------------------------------
# Numbers


def _number_text(value: NumberLike) -> str:
    """The text tmd reads for ``value``: dyadic values as exact hexadecimal floats."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise TypeError("a number was expected, not a bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return value.hex()
    man_exp = getattr(value, "man_exp", None)  # mpmath.mpf: exactly man * 2^exp
    if isinstance(man_exp, tuple) and len(man_exp) == 2:
        man, exp = man_exp
        return _hex_of_ratio(int(man) * (Fraction(2) ** int(exp)))
    ratio = getattr(value, "as_integer_ratio", None)
    if callable(ratio):
        try:
            num, den = ratio()
        except (OverflowError, ValueError):  # infinities and NaN of other types
            return str(value)
        return _hex_of_ratio(Fraction(num, den))
    return str(value)


def _hex_of_ratio(q: Fraction) -> str:
    """A dyadic rational as a hexadecimal float; another rational as ``num/den`` (which tmd
    refuses with its own message)."""
    den = q.denominator
    if den & (den - 1):
        return f"{q.numerator}/{den}"
    sign = "-" if q < 0 else ""
    return f"{sign}0x{abs(q.numerator):x}p-{den.bit_length() - 1}"


_HEX = re.compile(r"^([+-]?)0x([0-9a-f]+)(?:\.([0-9a-f]*))?p([+-]?\d+)$", re.IGNORECASE)


def _parse_hex(text: str):
    """``(negative, mantissa, exponent)`` with value ``±mantissa * 2^exponent``."""
    m = _HEX.match(text.strip())
    if not m:
        raise ValueError(f"not a hexadecimal float: {text!r}")
    sign, whole, frac, exp = m.groups()
    frac = frac or ""
    mantissa = int(whole + frac, 16)
    return sign == "-", mantissa, int(exp) - 4 * len(frac)


def exact(value: Union[str, float], kind: str = "fraction") -> Any:
    """An exact hexadecimal string (or float) of tmd's output as an exact number.

    ``kind`` is ``"fraction"`` (``fractions.Fraction``, always available), ``"mpmath"``
    (``mpmath.mpf`` with as many bits as the value needs) or ``"gmpy2"`` (``gmpy2.mpfr``
    likewise). ``inf``/``-inf`` give infinities where the kind has them.
    """
    if isinstance(value, float):
        value = value.hex() if value == value and abs(value) != float("inf") else repr(value)
    text = value.strip().lower()
    infinite = text.lstrip("+-") in ("inf", "infinity")
    if kind == "fraction":
        if infinite:
            raise ValueError("a Fraction cannot be infinite")
        negative, mantissa, exponent = _parse_hex(text)
        q = mantissa * Fraction(2) ** exponent
        return -q if negative else q
    if kind == "mpmath":
        import mpmath

        if infinite:
            return -mpmath.inf if text.startswith("-") else mpmath.inf
        negative, mantissa, exponent = _parse_hex(text)
        with mpmath.workprec(max(mantissa.bit_length(), 1) + 1):
            x = mpmath.ldexp(mpmath.mpf(mantissa), exponent)
        return -x if negative else x
    if kind == "gmpy2":
        import gmpy2

        if infinite:
            return gmpy2.mpfr("-inf" if text.startswith("-") else "inf")
        negative, mantissa, exponent = _parse_hex(text)
        x = gmpy2.mul_2exp(gmpy2.mpfr(mantissa, max(mantissa.bit_length(), 2)), exponent)
        return -x if negative else x
    raise ValueError(f"kind {kind!r}: expected 'fraction', 'mpmath' or 'gmpy2'")


_FITS: Dict[str, bool] = {}


def _fits_float(format_name: str) -> bool:
    """Whether every number of the format is a Python float (so floats carry them exactly)."""
    if format_name not in _FITS:
        _FITS[format_name] = _tmd.format_info(format_name)[2]
    return _FITS[format_name]


def _value(text: Optional[str], format_name: str) -> Optional[Value]:
    """A number of tmd's JSON: a float where the format fits one, else the hex string."""
    if text is None:
        return None
    return float.fromhex(text) if _fits_float(format_name) else text


# ---------------------------------------------------------------------------------------------
# Functions


@dataclass(frozen=True)
class Function:
    """A registered function (``tmd functions``)."""

    name: str
    domain: str
    aliases: List[str]
    summary: str


def functions() -> List[Function]:
    """The registered functions, in the registry's order. Expressions in x combine them with
    ``+ - * /``, integer powers, numbers and the constants ``pi`` and ``e``
    (``"x*exp(x)"``)."""
    return [Function(n, d, list(a), s) for (n, d, a, s) in _tmd.functions()]


# ---------------------------------------------------------------------------------------------
# Hardness


@dataclass(frozen=True)
class Hardness:
    """The exact classification of f(x) (``tmd hardness --json``).

    ``y`` is f(x) rounded to nearest (``rn``), ``rd``/``ru``/``rz`` the other roundings;
    ``kind`` is ``nearest``, ``directed``, ``exact``, ``unresolved``, ``undefined``, ``pole``
    or ``overflow``; ``bits`` = -log2 of the distance to the nearest breakpoint in ulps (the
    larger of ``bits_directed`` and ``bits_nearest``), ``k`` the run length
    (docs/definitions.md). ``json`` is the CLI's object, numbers as exact hex strings.
    """

    function: str
    format: str
    x: Value
    y: Optional[Value]
    rn: Optional[Value]
    rd: Optional[Value]
    ru: Optional[Value]
    rz: Optional[Value]
    kind: str
    bits: Optional[float]
    bits_directed: Optional[float]
    bits_nearest: Optional[float]
    k: Optional[int]
    midpoint: Optional[bool]
    json: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def _from_json(obj: Dict[str, Any]) -> "Hardness":
        fmt = obj["format"]
        return Hardness(
            function=obj["function"],
            format=fmt,
            x=_value(obj["x"], fmt),  # type: ignore[arg-type]
            y=_value(obj.get("y"), fmt),
            rn=_value(obj.get("rn"), fmt),
            rd=_value(obj.get("rd"), fmt),
            ru=_value(obj.get("ru"), fmt),
            rz=_value(obj.get("rz"), fmt),
            kind=obj["kind"],
            bits=obj.get("bits"),
            bits_directed=obj.get("bits_directed"),
            bits_nearest=obj.get("bits_nearest"),
            k=obj.get("k"),
            midpoint=obj.get("midpoint"),
            json=obj,
        )

    def rounded(self, mode: str) -> Optional[Value]:
        """f(x) rounded in ``mode``: ``nearest``, ``down``, ``up`` or ``zero``."""
        key = {"nearest": "rn", "down": "rd", "up": "ru", "zero": "rz"}.get(mode)
        if key is None:
            raise ValueError(f"mode {mode!r}: expected nearest, down, up or zero")
        return getattr(self, key)


def hardness(
    func: str,
    x: Union[NumberLike, Sequence[NumberLike]],
    format: str = "binary64",
    *,
    max_precision: Optional[int] = None,
) -> Union[Hardness, List[Hardness]]:
    """Decides f(x) exactly (``tmd hardness FUNC X --json``).

    ``func`` is a registered function (:func:`functions`) or an expression in x; ``x`` one
    number of the format, or a list of them (decided in parallel; a list comes back).
    ``max_precision`` caps the Ziv loop in bits (beyond it the kind is ``unresolved``).
    """
    single = isinstance(x, (str, bytes)) or not isinstance(x, Iterable)
    inputs = [_number_text(x)] if single else [_number_text(v) for v in x]  # type: ignore[union-attr]
    cap = _tmd.default_max_precision() if max_precision is None else max_precision
    lines = _tmd.hardness(func, inputs, format, cap)
    results = [Hardness._from_json(_json.loads(line)) for line in lines]
    return results[0] if single else results


# ---------------------------------------------------------------------------------------------
# Search


@dataclass(frozen=True)
class Case:
    """A hard-to-round case of a search (``tmd search --json``): f(x) within 2^-bits ulp of a
    breakpoint of ``kind`` (``nearest``: a midpoint, ``directed``: a number of the format;
    ``exact``, ``unresolved``, ... as in docs/definitions.md)."""

    function: str
    format: str
    x: Value
    y: Optional[Value]
    kind: str
    bits: Optional[float]
    k: Optional[int]
    midpoint: Optional[bool]
    json: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class RangeRecord:
    """A piece of the range where a proven rule makes every input hard (``"record":"range"``):
    inputs ``x_from`` to ``x_to`` (both included), each with bits >= ``bits_at_least``, f(x)
    next to ``anchor`` (a number of the format, or ``"x"``). ``expand_ranges=True`` lists its
    inputs one by one instead."""

    function: str
    format: str
    x_from: Value
    x_to: Value
    inputs: int
    kind: str
    bits_at_least: float
    rule: str
    anchor: Optional[Value]
    json: Dict[str, Any] = field(repr=False, compare=False)


def _record(obj: Dict[str, Any]) -> Union[Case, RangeRecord]:
    fmt = obj["format"]
    if obj.get("record") == "range":
        anchor = obj.get("anchor")
        return RangeRecord(
            function=obj["function"],
            format=fmt,
            x_from=_value(obj["x_from"], fmt),  # type: ignore[arg-type]
            x_to=_value(obj["x_to"], fmt),  # type: ignore[arg-type]
            inputs=obj["inputs"],
            kind=obj["kind"],
            bits_at_least=obj["bits_at_least"],
            rule=obj["rule"],
            anchor=anchor if anchor in (None, "x") else _value(anchor, fmt),
            json=obj,
        )
    return Case(
        function=obj["function"],
        format=fmt,
        x=_value(obj["x"], fmt),  # type: ignore[arg-type]
        y=_value(obj.get("y"), fmt),
        kind=obj["kind"],
        bits=obj.get("bits"),
        k=obj.get("k"),
        midpoint=obj.get("midpoint"),
        json=obj,
    )


class Search:
    """A running search: iterate it for its :class:`Case` and :class:`RangeRecord` objects,
    in x order, as the job lists them. The job runs on its own threads and waits while
    Python has not read what it listed, so memory does not grow with the range. Leaving the
    iteration early (``break``, an exception, Ctrl-C), :meth:`close` or a ``with`` block
    stops the job at its next finished chunk. A failed job raises at the end of the
    iteration."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __iter__(self) -> "Search":
        return self

    def __next__(self) -> Union[Case, RangeRecord]:
        return _record(_json.loads(next(self._stream)))

    @property
    def messages(self) -> List[str]:
        """The job's lines so far (the CLI's stderr without ``tmd: ``): notes on the
        arguments and, once the iteration has ended, the counts of the whole range."""
        return self._stream.messages

    def close(self) -> None:
        """Stops the search and waits for its threads to end."""
        self._stream.close()

    def __enter__(self) -> "Search":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _search_args(func, lo, hi, bits, breakpoints, format, max_precision, algorithm, backend):
    cap = _tmd.default_max_precision() if max_precision is None else max_precision
    return (func, _number_text(lo), _number_text(hi), format, bits, breakpoints, cap, algorithm,
            backend)


def search(
    func: str,
    lo: NumberLike,
    hi: NumberLike,
    *,
    bits: Optional[int] = None,
    breakpoints: str = "all",
    format: str = "binary64",
    backend: str = "cpu",
    algorithm: str = "auto",
    exact: bool = False,
    expand_ranges: bool = False,
    max_precision: Optional[int] = None,
    device: Optional[int] = None,
    threads: Optional[int] = None,
    chunk_bits: Optional[int] = None,
    resume: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: bool = False,
) -> Search:
    """Every input of ``[lo, hi)`` whose f(x) lies within 2^-``bits`` ulp of a breakpoint
    (``tmd search FUNC --from LO --to HI --json``), streamed.

    ``bits`` defaults to the format's precision; ``breakpoints`` is ``all``, ``directed`` or
    ``nearest``; ``backend`` ``cpu``, ``opencl`` or ``cuda``; ``algorithm`` as the CLI's
    ``--algorithm``; ``exact`` also lists exact cases; ``resume`` a journal directory (a
    stopped search with the same arguments goes on from it). Bad arguments raise
    :class:`InputError` here, before the first case. ``-inf``/``inf`` (as strings or floats)
    are the ends of the finite numbers, as in the CLI.
    """
    (f, lo_t, hi_t, fmt, k, bp, cap, alg, be) = _search_args(
        func, lo, hi, bits, breakpoints, format, max_precision, algorithm, backend
    )
    stream = _tmd.search_stream(
        f, lo_t, hi_t, fmt, k, bp, exact, expand_ranges, cap, alg, be, device, threads,
        chunk_bits, None if resume is None else os.fspath(resume), progress,
    )
    return Search(stream)


@dataclass(frozen=True)
class Plan:
    """What a search would cost (``tmd search --plan --json``): per piece of the range (binades,
    and where a rule decides) the method and the time projected from timed samples, as the
    CLI's JSON objects; ``summary`` the total line; ``messages`` every line of the job."""

    pieces: List[Dict[str, Any]]
    summary: str
    messages: List[str]

    @property
    def projected_seconds(self) -> float:
        """The projected time of the whole search, in seconds."""
        return float(sum(p.get("projected_seconds") or 0.0 for p in self.pieces))


def plan(
    func: str,
    lo: NumberLike,
    hi: NumberLike,
    *,
    bits: Optional[int] = None,
    breakpoints: str = "all",
    format: str = "binary64",
    backend: str = "cpu",
    algorithm: str = "auto",
    max_precision: Optional[int] = None,
    device: Optional[int] = None,
    threads: Optional[int] = None,
    chunk_bits: Optional[int] = None,
) -> Plan:
    """The plan of :func:`search` with the same arguments, without searching."""
    (f, lo_t, hi_t, fmt, k, bp, cap, alg, be) = _search_args(
        func, lo, hi, bits, breakpoints, format, max_precision, algorithm, backend
    )
    pieces, said = _tmd.plan(f, lo_t, hi_t, fmt, k, bp, cap, alg, be, device, threads, chunk_bits)
    notes_and_total = list(said)
    return Plan(
        pieces=[_json.loads(p) for p in pieces],
        summary=notes_and_total[-1] if notes_and_total else "",
        messages=notes_and_total,
    )


# ---------------------------------------------------------------------------------------------
# Crunch


@dataclass(frozen=True)
class WrongInput:
    """An input of a list whose result is not correctly rounded: ``got`` against the correctly
    rounded ``expected``, ``ulp`` the error, ``klass`` ``faithful``, ``worse than faithful``
    or a special class; ``line`` its line in the list."""

    x: Value
    expected: Optional[Value]
    got: Optional[Value]
    ulp: Optional[float]
    klass: str
    line: Optional[int]
    json: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class CrunchReport:
    """The report of one rounding mode of a crunch (``tmd crunch --json``; docs/crunch.md).

    ``max_ulp`` is the largest error in ulps, at ``argmax`` (result ``argmax_result``, correct
    ``argmax_expected``); ``correctly_rounded + faithful + worse`` is ``inputs``;
    ``specials`` counts the special classes, ``histogram`` the errors by bin. ``wrong`` lists
    the inputs not correctly rounded when the crunch ran over an input list (``inputs=``); a
    range crunch reports counts and the maximum only. ``json`` is the CLI's object."""

    target: str
    function: Optional[str]
    format: str
    rounding: str
    inputs: int
    max_ulp: Optional[float]
    argmax: Optional[Value]
    argmax_result: Optional[Value]
    argmax_expected: Optional[Value]
    correctly_rounded: int
    faithful: int
    worse: int
    specials: Dict[str, int]
    histogram: List[int]
    wrong: List[WrongInput]
    json: Dict[str, Any] = field(repr=False, compare=False)


def _report(obj: Dict[str, Any], wrong: List[Dict[str, Any]]) -> CrunchReport:
    fmt = obj["format"]

    def val(key: str, o: Dict[str, Any] = obj) -> Optional[Value]:
        v = o.get(key)
        if isinstance(v, list):  # a pair (two-argument functions): kept as hex strings
            return v  # type: ignore[return-value]
        try:
            return _value(v, fmt)
        except (ValueError, TypeError):  # "nan" and the like
            return v

    return CrunchReport(
        target=obj["target"],
        function=obj.get("function"),
        format=fmt,
        rounding=obj.get("rounding", "nearest"),
        inputs=obj.get("inputs", 0),
        max_ulp=obj.get("max_ulp"),
        argmax=val("argmax"),
        argmax_result=val("argmax_result"),
        argmax_expected=val("argmax_expected"),
        correctly_rounded=obj.get("correctly_rounded", 0),
        faithful=obj.get("faithful", 0),
        worse=obj.get("worse", 0),
        specials=dict(obj.get("specials", {})),
        histogram=list(obj.get("histogram", [])),
        wrong=[
            WrongInput(
                x=val("x", w),  # type: ignore[arg-type]
                expected=val("expected", w),
                got=val("got", w),
                ulp=w.get("ulp"),
                klass=w.get("class", ""),
                line=w.get("line"),
                json=w,
            )
            for w in wrong
        ],
        json=obj,
    )


def crunch(
    target: str,
    lo: Optional[NumberLike] = None,
    hi: Optional[NumberLike] = None,
    *,
    inputs: Optional[Union[str, "os.PathLike[str]", Iterable[NumberLike]]] = None,
    rounding: Union[str, Sequence[str]] = "nearest",
    function: Optional[str] = None,
    format: Optional[str] = None,
    max_ulp: Optional[float] = None,
    backend: str = "cpu",
    device: Optional[int] = None,
    block_bits: Optional[int] = None,
    sample: Optional[int] = None,
    checkpoint: Optional[Union[str, "os.PathLike[str]"]] = None,
    threads: Optional[int] = None,
    target_timeout: int = 60,
    progress: bool = False,
) -> Union[CrunchReport, List[CrunchReport]]:
    """The exact worst-case error of an implementation (``tmd crunch TARGET --json``).

    ``target`` is ``std:NAME``, ``libm:NAME``, ``glibc:NAME``, ``dl:PATH:SYMBOL``,
    ``c:FILE.c:SYMBOL``, ... (``tmd crunch --list``); ``function`` names what a ``dl:``/``c:``
    target computes when its symbol does not. Either a range ``[lo, hi)`` or ``inputs``: a
    file (a ``.wc`` list, ``tmd search --json`` lines, one number a line) or an iterable of
    numbers. ``rounding`` is ``nearest``, ``up``, ``down``, ``zero``, ``all`` or a list of
    modes: one mode gives a :class:`CrunchReport`, several a list of them. With ``max_ulp``
    a report beyond it raises :class:`GateError` (its ``reports`` attribute holds them all).
    """
    modes = [rounding] if isinstance(rounding, str) else list(rounding)
    temp: Optional[str] = None
    try:
        path: Optional[str] = None
        if inputs is not None:
            if isinstance(inputs, (str, os.PathLike)):
                path = os.fspath(inputs)
            else:
                fd, temp = tempfile.mkstemp(prefix="tmd-inputs-", suffix=".txt")
                with os.fdopen(fd, "w") as f:
                    for v in inputs:
                        f.write(_number_text(v) + "\n")
                path = temp
        out, gate = _tmd.crunch(
            target,
            None if lo is None else _number_text(lo),
            None if hi is None else _number_text(hi),
            path,
            function,
            format,
            modes,
            max_ulp,
            backend,
            device,
            block_bits,
            sample,
            None if checkpoint is None else os.fspath(checkpoint),
            threads,
            target_timeout,
            progress,
        )
    finally:
        if temp is not None:
            os.unlink(temp)
    reports: List[CrunchReport] = []
    wrong: List[Dict[str, Any]] = []
    for line in out.splitlines():
        if not line.strip():
            continue
        obj = _json.loads(line)
        if "target" in obj:
            reports.append(_report(obj, wrong))
            wrong = []
        else:
            wrong.append(obj)
    result: Union[CrunchReport, List[CrunchReport]] = (
        reports[0] if len(modes) == 1 and modes[0] != "all" and len(reports) == 1 else reports
    )
    if gate is not None:
        err = GateError(gate)
        err.reports = reports  # type: ignore[attr-defined]
        raise err
    return result
