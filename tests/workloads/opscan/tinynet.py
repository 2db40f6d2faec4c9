"""A model for the scan's tests: a few ops, forward and backward in milliseconds (`--model tinynet:build`)."""
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 2))
    return model, torch.randn(4, 8)


def not_a_model():
    return 3


def broken():
    raise KeyError("weights.bin")
