"""``--multi-turn N[,THINK_S]``: conversations of N turns, each turn sending the whole history so far (every user
message and every answer the server streamed back, as a chat client does) and a new user message of --input-len
tokens, with THINK_S seconds of the user's thinking between an answer and the next turn. A concurrency level keeps
that many conversations going (a new one starts as one ends); each conversation's words come from its own seed.

Its figures beside the level's: each turn's TTFT p50 and its prompt's mean length (``turns``), so the cost of a growing
history (and a prefix cache that keeps it) reads turn by turn. A turn that fails ends its conversation (there is no
answer to carry on from); the failure is counted as any other.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from dataclasses import dataclass
from statistics import fmean, median
from typing import Any, Callable, Sequence

from workloads.serve.client import Outcome
from workloads.serve.load import WORDS, Level, Pool, Request, Send, one


class BadTurns(ValueError):
    pass


@dataclass(frozen=True)
class MultiTurn:
    turns: int
    think_s: float = 0.0

    @classmethod
    def parse(cls, text: str) -> MultiTurn:
        parts = [p.strip() for p in text.split(",")]
        try:
            turns, think = int(parts[0]), float(parts[1]) if len(parts) > 1 else 0.0
        except ValueError:
            turns, think = 0, 0.0
        if len(parts) > 2 or not 1 < turns <= 1000 or not 0 <= think <= 3600:
            raise BadTurns(f"--multi-turn {text!r}: give N[,THINK_S]: 2 to 1000 turns a conversation, and the seconds "
                           "between an answer and the next turn (0 to 3600), e.g. 4,1.5")
        return cls(turns, think)

    def said(self) -> str:
        return f"{self.turns}-turn conversations, the whole history sent each turn, {self.think_s:g} s think time"


@dataclass
class Turn:
    conversation: int
    turn: int            # 0 first
    request: Request
    outcome: Outcome


async def run_conversations(spec: MultiTurn, level: Level, conversations: int, input_len: int, output_len: int,
                            make: Send, pool: Pool, path: str, chat: bool, timeout_s: float, seed: int,
                            done: Callable[[Turn], None] = lambda t: None) -> tuple[list[Turn], float]:
    """``conversations`` of ``spec.turns`` turns, ``level.value`` of them at once; every turn answered, in the order
    they ended, and the duration from the first send to the last answer."""
    found: list[Turn] = []
    todo = iter(range(conversations))

    async def talk(c: int) -> None:
        rng = random.Random(seed * 1_000_003 + c)
        history: list[dict[str, str]] = []
        due = time.perf_counter()
        for t in range(spec.turns):
            user = " ".join([f"{c}.{t}"] + rng.choices(WORDS, k=max(0, input_len - 1)))
            messages = history + [{"role": "user", "content": user}]
            asked = Request(messages, sum(len(m["content"].split()) for m in messages), output_len)
            outcome = await one(pool, path, make(asked), chat, timeout_s, due, keep_text=True)
            turn = Turn(c, t, asked, outcome)
            found.append(turn)
            done(turn)
            if not outcome.ok:
                return
            history = messages + [{"role": "assistant", "content": "".join(outcome.text or ())}]
            outcome.text = None        # the history holds it now
            due = time.perf_counter() + spec.think_s
            await asyncio.sleep(spec.think_s)

    async def worker() -> None:
        for c in todo:
            await talk(c)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(int(level.value), conversations))))
    return found, time.perf_counter() - start


def conversations_for(level: Level, spec: MultiTurn, requests: int | None) -> int:
    """A level's conversations: --requests turns' worth, else two for each in flight."""
    return max(1, math.ceil(requests / spec.turns)) if requests else max(2, 2 * int(level.value))


def turn_figures(turns: Sequence[Turn]) -> dict[str, Any]:
    """Each turn's TTFT p50 (ms) and mean prompt length in tokens, over the conversations that reached it."""
    rows = []
    for t in range(1 + max((x.turn for x in turns), default=-1)):
        at = [x for x in turns if x.turn == t]
        ttft = [x.outcome.ttft * 1000 for x in at if x.outcome.ok and x.outcome.ttft is not None]
        rows.append({"turn": t + 1, "requests": len(at), "ttft_ms_p50": median(ttft) if ttft else None,
                     "input_tokens_mean": fmean(x.outcome.prompt_tokens or x.request.input_tokens for x in at)})
    said = ", ".join(f"{r['turn']}: {r['ttft_ms_p50']:.3g} ms ({r['input_tokens_mean']:.0f} tokens)"
                     for r in rows if r["ttft_ms_p50"] is not None)
    return {"turns": rows, "turn_ttft": said}
