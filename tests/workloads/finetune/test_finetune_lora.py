"""LoRA as peft defines it: the same A from the same seed, the same outputs and gradients (issue 25)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # this checkout, wherever it is

import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from workloads.child.harness import WorkloadError  # noqa: E402
from workloads.finetune import flops, lora  # noqa: E402
from workloads.models.llama.model import Dense, Llama  # noqa: E402
from workloads.models.llama.presets import LlamaConfig  # noqa: E402

SMALL = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=64)


def test_lora_matches_peft_on_one_product():
    peft = pytest.importorskip("peft")
    n_in, n_out, r, alpha = 12, 10, 4, 8.0
    dense = Dense(n_in, n_out)
    nn.init.normal_(dense.weight)

    class One(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(n_in, n_out, bias=False)

        def forward(self, x):
            return self.proj(x)

    base = One()
    with torch.no_grad():
        base.proj.weight.copy_(dense.weight.t())
    torch.manual_seed(7)
    theirs = peft.get_peft_model(base, peft.LoraConfig(r=r, lora_alpha=alpha, target_modules=["proj"]))
    torch.manual_seed(7)
    ours = lora.LoraDense(dense, r, alpha, 0.0)
    layer = theirs.base_model.model.proj
    assert torch.equal(ours.lora_A, layer.lora_A["default"].weight)  # the same draw from the same seed
    assert torch.count_nonzero(ours.lora_B) == 0
    torch.manual_seed(11)  # b and x fixed, so a failure reproduces
    with torch.no_grad():  # a trained B, so the update shows
        b = torch.randn(n_out, r)
        ours.lora_B.copy_(b)
        layer.lora_B["default"].weight.copy_(b)
    x = torch.randn(3, 5, n_in)
    y_ours, y_theirs = ours(x), theirs(x)
    torch.testing.assert_close(y_ours, y_theirs)
    y_ours.square().sum().backward()
    y_theirs.square().sum().backward()
    # peft and we sum the same products in a different order; float32 rounding of gradients of size ~100
    # differs by ~1e-5 (CI saw 1.3e-5 absolute on one element), far below a wrong scaling or a transposed factor
    grads = ((ours.lora_A.grad, layer.lora_A["default"].weight.grad),
             (ours.lora_B.grad, layer.lora_B["default"].weight.grad))
    for mine, peft_grad in grads:
        torch.testing.assert_close(mine, peft_grad, rtol=1e-4, atol=1e-4)
    assert dense.weight.grad is None  # the base is frozen


def test_adapters_start_as_the_base_model_and_only_they_train():
    model = Llama(SMALL)
    model.init_random(0)
    idx = torch.randint(0, SMALL.vocab_size, (2, 9))
    before = model(idx).detach()
    names = lora.apply(model, ("qkv", "down_proj"), 4, 8.0, 0.0)
    assert names == ["layers.0.self_attn.qkv", "layers.0.mlp.down_proj", "layers.1.self_attn.qkv",
                     "layers.1.mlp.down_proj"]
    torch.testing.assert_close(model(idx), before)  # B is zero: the update starts at nothing
    assert lora.trainable(model) == flops.adapter_parameters(SMALL, 4, ("qkv", "down_proj"))
    assert all(("lora_" in n) == p.requires_grad for n, p in model.named_parameters())


def test_targets_that_match_nothing_are_refused():
    with pytest.raises(WorkloadError, match="matches no product"):
        lora.apply(Llama(SMALL), ("q_proj",), 4, 8.0, 0.0)


def test_palm_flops_count_lora_weight_gradients_of_the_adapters_only():
    full = flops.per_token(SMALL, 16, "full")
    n = flops.matmul_parameters(SMALL)
    attention = 12 * 2 * 4 * 8 * 16
    assert full.per_token == 6 * n + attention
    trainable = flops.adapter_parameters(SMALL, 4, flops.TARGETS)
    lora_flops = flops.per_token(SMALL, 16, "lora", trainable)
    assert lora_flops.per_token == 4 * (n + trainable) + 2 * trainable + attention
    assert "PaLM appendix B" in lora_flops.formula and "4N + 2N_trainable" in lora_flops.formula
    # an untied embedding is a lookup: not in N
    assert n == SMALL.parameter_count() - SMALL.vocab_size * SMALL.hidden_size
    assert flops.mfu(1000.0, 1e9, 1.0) == pytest.approx(1.0) and flops.mfu(1000.0, 1e9, None) is None


def test_the_one_lora_estimate_is_the_real_adapters_count_on_the_tiny_preset():
    """llm's fit and finetune count LoRA once (workloads.models.llama.fit.lora_parameters): the parameters the real
    adapters hold on the tiny preset at r16 over every target, as `cardbench fit` and `finetune --fit-only` say."""
    from workloads.models.llama import fit
    from workloads.models.llama.presets import PRESETS

    tiny = PRESETS["tiny"]
    with torch.device("meta"):   # shapes only: nothing of its 19.7M parameters is allocated
        model = Llama(tiny)
    lora.apply(model, fit.TARGETS, fit.LORA_RANK, 32.0, 0.0)
    assert lora.trainable(model) == fit.lora_parameters(tiny) == flops.adapter_parameters(tiny, 16, flops.TARGETS)
    assert fit.training(tiny, 1, 64, 4, "lora").gradients == lora.trainable(model) * 4
