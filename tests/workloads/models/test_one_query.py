"""The decode step's one-query attention (workloads/models/one_query.py): its result, and the thread rule."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from workloads.models import one_query


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def _qkv(rows: int, positions: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    return tuple(torch.randn(1, 2, n, 16, generator=gen) for n in (rows, positions, positions))


def test_attend_is_sdpa_over_the_cache():
    q, k, v = _qkv(7, 36)
    # fp32 over 36 positions: the two differ only in summation order (a few ulps, ~1e-6 here); 1e-4 leaves margin
    torch.testing.assert_close(one_query.attend(q, k, v), F.scaled_dot_product_attention(q, k, v),
                               rtol=1e-4, atol=1e-4)
    mask = torch.arange(36)[None, :] <= torch.tensor([20])[:, None]  # the static path's position mask
    torch.testing.assert_close(one_query.attend(q, k, v, mask), F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


def _threads_seen(monkeypatch, positions: int) -> list[int]:
    seen: list[int] = []
    plain = one_query._plain

    def spy(*args):
        seen.append(torch.get_num_threads())
        return plain(*args)

    monkeypatch.setattr(one_query, "_plain", spy)
    one_query.attend(*_qkv(7, positions))
    return seen


def test_a_small_attention_runs_on_one_thread_and_gives_the_threads_back(monkeypatch, two_threads):
    assert _threads_seen(monkeypatch, 36) == [1]
    assert torch.get_num_threads() == 2


def test_a_large_attention_keeps_every_thread(monkeypatch, two_threads):
    positions = one_query.SERIAL_MAX_KEYS // (2 * 16) + 1  # one position past the rule's keys
    assert _threads_seen(monkeypatch, positions) == [2]


def test_the_threads_come_back_after_an_exception(two_threads):
    with pytest.raises(RuntimeError), one_query.one_thread():
        assert torch.get_num_threads() == 1
        raise RuntimeError("boom")
    assert torch.get_num_threads() == 2
