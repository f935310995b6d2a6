"""Type stubs of tmd's native module (crates/tmd-py/src): the library jobs with JSON output.

The public API is the package ``tmd`` (``__init__.py``), which turns these JSON lines into
typed objects; this module is its implementation detail.
"""

from typing import Iterator, List, Optional, Tuple

__version__: str

class TmdError(Exception):
    """Base class of tmd's errors; the message is the CLI's one line, without ``tmd: ``."""

class InputError(TmdError):
    """Bad input: a function, format, number, range or option tmd refuses (the CLI exits 2)."""

class JobError(TmdError):
    """A job that failed while running (the CLI exits 1)."""

class GateError(JobError):
    """A crunch whose results did not pass ``max_ulp``."""

def functions() -> List[Tuple[str, str, List[str], str]]:
    """``(name, domain, aliases, summary)`` of every registered function."""

def format_info(format: str) -> Tuple[str, int, bool]:
    """``(name, precision, fits_float)`` of a format."""

def default_max_precision() -> int:
    """The CLI's default ``--max-precision``."""

def hardness(function: str, inputs: List[str], format: str, max_precision: int) -> List[str]:
    """``tmd hardness --json``: one JSON line per input."""

class SearchStream(Iterator[str]):
    """A running ``tmd search --json``: its JSON lines, streamed."""

    def __iter__(self) -> "SearchStream": ...
    def __next__(self) -> str: ...
    def close(self) -> None:
        """Stops the search and waits for its thread."""
    @property
    def messages(self) -> List[str]:
        """The job's lines so far."""

def search_stream(
    function: str,
    lo: str,
    hi: str,
    format: str,
    bits: Optional[int],
    breakpoints: str,
    exact: bool,
    expand_ranges: bool,
    max_precision: int,
    algorithm: str,
    backend: str,
    device: Optional[int],
    threads: Optional[int],
    chunk_bits: Optional[int],
    resume: Optional[str],
    progress: bool,
) -> SearchStream:
    """Starts ``tmd search --json``."""

def plan(
    function: str,
    lo: str,
    hi: str,
    format: str,
    bits: Optional[int],
    breakpoints: str,
    max_precision: int,
    algorithm: str,
    backend: str,
    device: Optional[int],
    threads: Optional[int],
    chunk_bits: Optional[int],
) -> Tuple[List[str], List[str]]:
    """``tmd search --plan --json``: the pieces' JSON lines and the job's lines."""

def crunch(
    target: str,
    lo: Optional[str],
    hi: Optional[str],
    inputs: Optional[str],
    function: Optional[str],
    format: Optional[str],
    rounding: List[str],
    max_ulp: Optional[float],
    backend: str,
    device: Optional[int],
    block_bits: Optional[int],
    sample: Optional[int],
    checkpoint: Optional[str],
    threads: Optional[int],
    target_timeout: int,
    progress: bool,
) -> Tuple[str, Optional[str]]:
    """``tmd crunch --json``: its output and, when ``max_ulp`` failed, the gate's line."""
