"""What each request asks: one maker for the sweep's levels, --duration's requests and the probe; the levels read from
the arguments without changing them."""

from __future__ import annotations

from workloads.child.harness import Emitter
from workloads.serve.cli import build_parser, levels_of
from workloads.serve.client import Endpoint
from workloads.serve.load import Level
from workloads.serve.sweep import Sweep


def _sweep(prompts=None) -> Sweep:
    args = build_parser().parse_args(["--url", "http://127.0.0.1:9/v1", "--input-len", "5", "--output-len", "7"])
    return Sweep(Emitter(), args, levels_of(args), Endpoint.parse(args.url), None, prompts, None)


def test_levels_of_reads_the_arguments_and_leaves_them_as_they_are():
    args = build_parser().parse_args(["--duration", "30", "--concurrency", "8"])
    before = vars(args).copy()
    assert levels_of(args) == [Level("concurrency", 8)]
    assert vars(args) == before and args.window is None     # the window's default is main's to set


def test_synthetic_requests_are_numbered_and_drawn_from_their_seed():
    sweep = _sweep()
    level = sweep._requests(8, 4, 3)
    assert [r.prompt.split()[0] for r in level] == ["8", "9", "10", "11"]
    assert all(len(r.prompt.split()) == 5 and (r.input_tokens, r.max_tokens) == (5, 7) for r in level)
    assert sweep._requests(8, 4, 3) == level and sweep._requests(8, 4, 4) != level     # seeded
    # --duration's i-th request is the maker's, from its own seed: the same whatever ran before it
    ninth = sweep._request(9)
    sweep._requests(0, 16, sweep.args.seed)                # other requests made in between
    assert sweep._request(9) == ninth and ninth.prompt.split()[0] == "9" and ninth != sweep._request(10)


def test_the_users_prompts_are_taken_in_turn_from_the_first_asked():
    prompts = [{"prompt": "a"}, {"messages": [{"role": "user", "content": "b"}], "max_tokens": 3}, {"prompt": "c"}]
    sweep = _sweep(prompts)
    assert [(r.prompt, r.max_tokens) for r in sweep._requests(2, 3, 0)] == \
        [("c", 7), ("a", 7), ([{"role": "user", "content": "b"}], 3)]
    assert [sweep._request(i).prompt for i in range(4)] == ["a", prompts[1]["messages"], "c", "a"]
