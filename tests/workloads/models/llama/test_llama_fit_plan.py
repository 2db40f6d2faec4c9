"""The fit plan (`workloads.models.llama.fit_plan`, issue 40 items 4 and 5): the hand check of Qwen2.5-7B, verdicts
read against the target's memory (a named card's, never this host's), the runtime's lines apart, accelerate's
weights-only figure beside, the cards needed, the bounds a card's rated figures give, and the table's columns."""

import pytest

from workloads.catalogue import Message
from workloads.facts.card import named_card
from workloads.facts.formatting import format_bytes
from workloads.models.llama import fit, fit_plan, fit_table
from workloads.models.llama.fit_plan import Ask, Target
from workloads.models.llama.presets import PRESETS
from workloads.models import loss_chunk
from workloads.models.llama.runtime_cost import ALLOCATOR_SHARE, CONTEXT_BYTES, CPU_TRAINING_BYTES

QWEN = PRESETS["Qwen2.5-7B"]
GIB = 2**30


def _ask(config=QWEN, batch=1, context=4096 + 128, prefill=4096, dtype="bf16"):
    return Ask(config, "Qwen2.5-7B", dtype, 2 if dtype != "fp32" else 4, batch, context, prefill)


def test_the_qwen_hand_check_holds_to_the_byte():
    """A user's hand check: 7,615,616,512 parameters, 57,344 bytes of bf16 KV cache a token (28 layers x 4 KV heads x
    128 x 2 (K and V) x 2 bytes)."""
    assert QWEN.parameter_count() == 7_615_616_512
    assert QWEN.kv_bytes_per_token(2) == 57_344 == 28 * 4 * 128 * 2 * 2
    e = fit.inference(QWEN, 1, 4224, 4096, 2)
    assert e.weights == 7_615_616_512 * 2 and e.kv_cache == 4224 * 57_344


def test_lora_is_counted_as_finetune_builds_it():
    """q/k/v one product and gate/up one (workloads/finetune/lora.py): 35.55 M at r16, not peft's 40.4 M."""
    assert fit.lora_parameters(QWEN) == 35_553_280
    peft = 28 * 16 * (3 * 3584 + 3584 + 2 * 512 + 3584 + 3584 + 2 * 3584 + 2 * 18944 + 18944 + 3584)
    assert peft == 40_370_176 and peft - fit.lora_parameters(QWEN) == 28 * 16 * 3 * 3584   # five A matrices more
    assert fit.training(QWEN, 1, 2048, 2, "lora").gradients == 35_553_280 * 4   # fp32 adapters' gradients


def test_a_verdict_reads_the_target_s_memory_and_the_largest_batch_is_the_edge():
    ask = _ask()
    card = named_card("Ascend 910B3")
    target = Target(card.name, "card", card.memory_bytes)
    assert target.memory_bytes == 64 * GIB
    v = fit_plan.verdict(ask, "inference", target)
    at = lambda b: sum(x.total for x in fit_plan.need(ask, "inference", b, context=True))  # noqa: E731
    assert v["fits"] and at(v["largest_batch"]) <= 64 * GIB < at(v["largest_batch"] + 1)
    small = fit_plan.verdict(ask, "inference", Target("8 GiB", "size", 8 * GIB))
    assert not small["fits"] and small["largest_batch"] == 0 and small["cards"] == 3   # 15.2 GB of weights


def test_the_runtime_s_lines_are_apart_and_free_memory_already_lacks_the_context():
    ask = _ask()
    e, card = fit_plan.need(ask, "inference", 1, context=True)
    _, free = fit_plan.need(ask, "inference", 1, context=False)
    assert card.context == CONTEXT_BYTES and free.context == 0
    assert card.allocator == int(e.total * ALLOCATOR_SHARE) and card.graph_pool > 0 and card.collectives == 0
    _, split = fit_plan.need(ask, "full", 1, context=True, cards=4)
    assert split.collectives > 256 * 2**20 and split.graph_pool == 0   # NCCL's buffers and the gathered layers
    m = fit_plan.plan(ask, [Target("x", "size", 80 * GIB)])
    row = m["fit"][0]
    assert row["total_bytes"] == e.total + card.total and row["runtime_bytes"] == card.total
    assert m["fit_context_bytes"] == CONTEXT_BYTES and m["fit_collectives_bytes"] > 0


def test_accelerate_s_weights_only_figure_sits_beside_the_estimate():
    m = fit_plan.plan(_ask(), [])
    assert m["fit_accelerate_bytes"] == 7_615_616_512 * 2 == m["fit"][0]["weights_bytes"]
    assert m["fit_accelerate_training_bytes"] == 4 * m["fit_accelerate_bytes"]
    assert m["fit"][3]["total_bytes"] > 2 * m["fit_accelerate_training_bytes"]   # full AdamW as finetune runs it


def test_cards_needed_is_the_fewest_that_hold_the_work_split():
    ask, room = _ask(), 32 * GIB
    target = Target("32 GiB", "size", room)
    n = fit_plan.cards_needed(ask, "full_checkpointing", target)
    total = lambda cards: sum(x.total for x in fit_plan.need(ask, "full_checkpointing", 1, True, cards))  # noqa: E731
    assert n is not None and n > 1 and total(n) <= room < total(n - 1)
    tiny = Target("1 GiB", "size", GIB)   # activations whole on each card: no number of cards holds them
    assert fit_plan.cards_needed(ask, "full", tiny) is None


def test_a_named_card_s_bounds_and_cost():
    a100 = named_card("NVIDIA A100 80GB")
    target = Target(a100.name, "card", a100.memory_bytes, a100.bandwidth_gbps, a100.peak("bf16").value)
    ask = _ask()
    b = fit_plan.bounds(ask, target, price=2.5)
    read = (7_615_616_512 - (152064 - 1) * 3584) * 2 + (4096 + 64) * 57_344
    assert fit_plan.decode_bytes(ask) == read
    assert b["decode_bound_tokens_per_s"] == pytest.approx(2039e9 / read)
    # 2 FLOPs a multiply-add of every product (all but the untied embedding table) and causal attention over 4,096
    # prompt tokens: 2 x 2 x layers x heads x head_dim x (t + 1) / 2
    flops = 2 * (7_615_616_512 - 152064 * 3584) + 2 * 2 * 28 * 28 * 128 * 4097 / 2
    assert fit_plan.prefill_flops_per_token(ask) == flops
    assert b["prefill_bound_tokens_per_s"] == pytest.approx(312e12 / flops)
    assert b["cost_per_million_tokens"] == pytest.approx(2.5 / 3600 / b["decode_bound_tokens_per_s"] * 1e6)
    assert fit_plan.bounds(ask, Target("32 GiB", "size", 32 * GIB), 2.5) == {
        "decode_bound_tokens_per_s": None, "prefill_bound_tokens_per_s": None, "cost_per_million_tokens": None}


def test_the_tables_have_a_column_per_target_and_say_it_in_chinese():
    b3, a100 = named_card("Ascend 910B3"), named_card("NVIDIA A100 80GB")
    targets = [Target(c.name, "card", c.memory_bytes, c.bandwidth_gbps, (c.peak("bf16").value if c.peak("bf16")
                                                                         else None)) for c in (b3, a100)]
    estimate, verdicts, runtime = fit_table.tables(fit_plan.plan(_ask(), targets))
    heading, columns, rows = estimate
    assert [str(c) for c in columns] == ["use", "needs", "weights", "KV cache", "activations", "transient peak",
                                         "gradients + AdamW", "runtime"]
    assert [r[0] for r in rows] == [r[0] for r in verdicts[2][:5]] == [Message(f"workload.fit.use.{u[0]}")
                                                                        for u in fit_plan.USES]
    assert [str(c) for c in verdicts[1]] == ["use or figure", "Ascend 910B3 64 GiB", "A100 80GB"]
    # LoRA with checkpointing: 22, not 28, once the backward's gradients of a block (0.5 GB a sequence) are counted
    # inference: 52 = (64 GiB less the 512 MiB context, over 1.05 for the allocator's share, less 15.2 GB of weights)
    # over 951 MB a sequence: 242 MB of KV cache at 4,224 positions, 709 MB of the MLP's live tensors at 4,096
    assert [str(r[1]) for r in verdicts[2][:5]] == ["fits, batch <= 52", "fits, batch <= 2", "fits, batch <= 22",
                                                   "needs 4 cards", "needs 3 cards"]
    said = {str(r[0]): r for r in verdicts[2]}
    assert str(said["prefill <= bf16 peak / FLOPs a prompt token"][1]) == "N/A: no rated figure"
    assert str(said["rated bf16 peak"][2]) == "312 TFLOP/s"
    assert "cost per million tokens" not in " ".join(said)   # no price, no cost line
    assert heading("zh").startswith("Qwen2.5-7B（bf16）在批 1 × 4224 个位置") and verdicts[0]("zh").endswith(
        "额定 80.0 GiB")
    assert [str(r[1]) for r in runtime[2]][:2] == ["512 MiB", format_bytes(fit_plan.plan(_ask(), targets)[
        "fit_allocator_bytes"])]


def test_a_training_step_s_transient_peak_is_its_own_line_and_the_largest_of_its_moments():
    """Issue 40 item 5: the step peaks above what it keeps, in the loss's chunk, in a block's backward or in AdamW's
    step (bench/train_step_peak.py measured where); the estimate counts the largest as a line of its own."""
    tiny = PRESETS["tiny"]
    one = fit.step_memory(tiny, 1, 1024, "off", "lora", False)
    # one chunk of 1,024 tokens: its fp32 logits and log-probabilities, nothing carried from a chunk before
    assert one.transient == 1024 * 8192 * 8 == loss_chunk.peak_bytes(1024, 8192, 4)
    assert one.total == one.weights + one.activations + one.gradients + one.optimizer + one.workspace + one.transient
    # past a chunk the previous one's log-probabilities are still named when the next one's are formed
    rows = loss_chunk.chunk_rows(8192)
    assert loss_chunk.peak_bytes(rows + 1, 8192, 4) == rows * 8192 * 12
    assert loss_chunk.peak_bytes(rows + 1, 8192, 2) == rows * 8192 * (2 + 4 + 4 + 4 + 2)   # bf16: the fp32 copy too
    # full fine-tuning of Qwen with checkpointing: AdamW's square roots (4 bytes a parameter) pass the freed activations
    full = fit.step_memory(QWEN, 1, 4224, "bf16", "full", True)
    assert full.transient == 7_615_616_512 * 4 - full.activations
    # split over cards, AdamW's temporaries are a shard's: some number of cards holds it (none did while it stayed whole)
    assert fit_plan.cards_needed(_ask(), "full_checkpointing", Target("32 GiB", "size", 32 * GIB)) == 6
    assert fit.split_over(full, 8, QWEN, 1, 4224, 2).transient < full.transient


def test_on_the_cpu_a_training_step_s_own_runtime_is_its_context_line():
    ask = _ask(PRESETS["tiny"], 1, 1024, 1024, "fp32")
    host = Target("cap", "free", GIB, cpu=True)
    _, lora = fit_plan.need(ask, "lora", 1, host.holds_context, 1, host.cpu)
    _, inference = fit_plan.need(ask, "inference", 1, host.holds_context, 1, host.cpu)
    assert lora.context == CPU_TRAINING_BYTES and inference.context == 0   # no driver; an inference step leaves little
    assert fit_plan.verdict(ask, "lora", host)["largest_batch"] < fit_plan.verdict(
        ask, "lora", Target("cap", "free", GIB))["largest_batch"]


def test_a_plan_for_this_host_s_memory_alone_counts_no_card_context_in_its_needs():
    """`cardbench ready --model tiny` on the CPU said the model needs 600 MiB, 512 of them a card's driver context."""
    ask = _ask(PRESETS["tiny"], 1, 48, 32, "fp32")
    on_cpu = fit_plan.plan(ask, [Target("", "free", 20 * GIB, cpu=True)])
    for_card = fit_plan.plan(ask, [Target("32 GiB", "size", 32 * GIB)])
    cpu_rows = {r["use_id"]: r for r in on_cpu["fit"]}
    card_rows = {r["use_id"]: r for r in for_card["fit"]}
    assert on_cpu["fit_context_bytes"] == 0 and for_card["fit_context_bytes"] == CONTEXT_BYTES
    assert card_rows["inference"]["total_bytes"] - cpu_rows["inference"]["total_bytes"] > CONTEXT_BYTES
    assert cpu_rows["inference"]["total_bytes"] < 128 * 2**20     # tiny's 75 MiB of weights and little else
    assert cpu_rows["lora"]["runtime_bytes"] >= CPU_TRAINING_BYTES  # a training step's own runtime on the CPU
