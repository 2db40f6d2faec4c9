"""llama-bench's tests as llm runs them: ``--pp N,N --tg N,N --depth D,D`` made into named tests (torch-free).

llama.cpp's tools/llama-bench names a prompt-processing test of N tokens ``ppN`` and a text-generation test of N
tokens ``tgN``; with ``-d D`` the same test runs with D tokens already in the KV cache and is named ``ppN @ dD``
(depth 0 keeps the bare name). Every pp and tg length runs at every depth, in llama-bench's order (depth, then pp,
then tg). Checked here, before torch is imported, so a length past the model's context is one line and exit 2.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from workloads.errors import clipped


@dataclass(frozen=True)
class BenchTest:
    kind: str     # "pp" or "tg"
    n: int        # tokens prefilled (pp) or generated (tg)
    depth: int    # tokens already in the cache before the timed part

    @property
    def name(self) -> str:
        """llama-bench's test column: pp512, tg128 @ d4096."""
        return f"{self.kind}{self.n}" + (f" @ d{self.depth}" if self.depth else "")

    @property
    def positions(self) -> int:
        """Cache positions the test needs. tg decodes after a prompt of ``depth`` tokens (one token at depth 0,
        as llama-bench starts generation), the prompt's own next token included, so ``max(depth, 1) + n``."""
        if self.kind == "pp":
            return self.depth + self.n
        return max(self.depth, 1) + self.n


def lengths(text: str) -> tuple[int, ...]:
    """``--pp``/``--tg``: '512,1024' -> (512, 1024); '0' alone -> () (llama-bench's ``-p 0``: no such test).

    A 0 beside other lengths, or a negative one, is refused: argparse's type= error, exit 2."""
    values = _whole_numbers(text)
    if values == (0,):
        return ()
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"{clipped(text, quote=True)}: each test length must be a whole number of 1 "
                                         "or more (0 alone: no such test)")
    return tuple(dict.fromkeys(values))


def depths(text: str) -> tuple[int, ...]:
    """``--depth``: '0,4096' -> (0, 4096): tokens already in the cache, 0 or more each."""
    values = _whole_numbers(text)
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{clipped(text, quote=True)}: each depth must be a whole number of 0 or more")
    return tuple(dict.fromkeys(values))


def _whole_numbers(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{clipped(text, quote=True)} is not a comma-separated list of whole "
                                         "numbers") from None


def tests(pps: tuple[int, ...], tgs: tuple[int, ...], depth_list: tuple[int, ...]) -> tuple[BenchTest, ...]:
    """Every pp and tg length at every depth, depth by depth."""
    return tuple(test for d in depth_list
                 for test in (*(BenchTest("pp", n, d) for n in pps), *(BenchTest("tg", n, d) for n in tgs)))


def past_context(planned: tuple[BenchTest, ...], context: int) -> BenchTest | None:
    """The first test that needs more cache positions than the model's context, or None."""
    return next((t for t in planned if t.positions > context), None)
