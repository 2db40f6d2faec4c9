"""The fused head + cross-entropy gives the unfused loss and gradients, in every chunking, dtype and freezing."""

import pytest
import torch
import torch.nn.functional as F

from workloads.models.chunked_loss import linear_cross_entropy
from workloads.models.loss_chunk import chunk_rows
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import preset
from workloads.models.loss import lm_loss


def _inputs(dtype=torch.float32, head_grad=True):
    gen = torch.Generator().manual_seed(0)
    hidden = torch.randn(37, 16, generator=gen, dtype=dtype, requires_grad=True)
    head = torch.randn(16, 50, generator=gen, dtype=dtype).mul_(0.3).requires_grad_(head_grad)
    targets = torch.randint(0, 50, (37,), generator=gen)
    return hidden, head, targets


def _unfused(hidden, head, targets):
    return F.cross_entropy((hidden @ head).to(torch.promote_types(hidden.dtype, torch.float32)), targets)


@pytest.mark.parametrize("rows", [1, 5, 37, 100])
def test_loss_and_both_gradients_match_the_unfused_head_in_any_chunking(rows):
    hidden, head, targets = _inputs()
    fused = linear_cross_entropy(hidden, head, targets, rows)
    (fused * 3).backward()  # a scaled loss (a gradient scaler, grad accumulation) scales both gradients
    got = hidden.grad.clone(), head.grad.clone()
    hidden.grad = head.grad = None
    (_unfused(hidden, head, targets) * 3).backward()
    torch.testing.assert_close(fused, _unfused(hidden, head, targets))
    torch.testing.assert_close(got[0], hidden.grad)
    torch.testing.assert_close(got[1], head.grad)


def test_a_frozen_head_gets_no_gradient_and_float64_stays_float64():
    hidden, head, targets = _inputs(torch.float64, head_grad=False)
    fused = linear_cross_entropy(hidden, head, targets, 8)
    assert fused.dtype == torch.float64  # the CPU replay that judges a run is float64 throughout
    fused.backward()
    assert head.grad is None
    want = hidden.grad.clone()
    hidden.grad = None
    _unfused(hidden, head, targets).backward()
    torch.testing.assert_close(want, hidden.grad, rtol=1e-12, atol=1e-12)


def test_under_bf16_autocast_the_product_is_16_bit_and_the_loss_fp32():
    hidden, head, targets = _inputs()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fused = linear_cross_entropy(hidden, head, targets, 7)
        unfused = F.cross_entropy((hidden @ head).float(), targets)
    assert fused.dtype == torch.float32
    torch.testing.assert_close(fused, unfused, rtol=2e-2, atol=2e-2)


def test_a_chunk_holds_at_most_the_set_number_of_logits():
    assert chunk_rows(152_064) * 152_064 <= 2**25 < (chunk_rows(152_064) + 1) * 152_064
    assert chunk_rows(10**9) == 1


def test_the_llama_loss_is_the_one_its_logits_give():
    torch.manual_seed(0)
    model = Llama(preset("tiny"))
    model.init_random(0)
    tokens = torch.randint(0, model.config.vocab_size, (2, 9))
    fused = lm_loss(model, tokens)
    fused.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    logits = model(tokens[:, :-1])
    unfused = F.cross_entropy(logits.float().flatten(0, 1), tokens[:, 1:].flatten())
    unfused.backward()
    torch.testing.assert_close(fused, unfused)
    for name, p in model.named_parameters():
        torch.testing.assert_close(grads[name], p.grad, msg=name)
