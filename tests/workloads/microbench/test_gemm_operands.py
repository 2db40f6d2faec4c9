"""The low-precision GEMMs hand cuBLASLt the layouts its kernels take (checked on the CPU through the calls' arguments)."""

import torch

from workloads.microbench import gemm


def test_int8_s_second_operand_is_column_major_and_the_product_is_exact(monkeypatch):
    seen = {}
    real = torch._int_mm

    def recording(a, b):
        seen["a"], seen["b"] = a, b
        return real(a, b)

    monkeypatch.setattr(torch, "_int_mm", recording)
    out = gemm.operands("int8", 64, torch.device("cpu"))()
    assert seen["a"].is_contiguous() and seen["b"].stride() == (1, 64)  # row-major A, column-major B
    assert torch.equal(out, seen["a"].int() @ seen["b"].int())


def test_fp8_asks_for_fast_accumulation_with_a_column_major_second_operand(monkeypatch):
    seen = {}
    monkeypatch.setattr(torch, "_scaled_mm", lambda a, b, **kw: seen.update(b=b, **kw))
    gemm.operands("fp8", 32, torch.device("cpu"))()
    assert seen["b"].stride() == (1, 32) and seen["use_fast_accum"] is True and seen["out_dtype"] == torch.bfloat16
