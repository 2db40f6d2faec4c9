"""The language-model loss: each position predicts the next token, the logits read in fp32."""

import torch

from workloads.models.loss import lm_loss


class Recorded(torch.nn.Module):
    """Logits that depend on the input only through what it was called with, kept for the test to read."""

    def __init__(self, vocab: int, dtype: torch.dtype):
        super().__init__()
        self.vocab, self.dtype, self.seen = vocab, dtype, None

    def forward(self, idx):
        self.seen = idx
        gen = torch.Generator().manual_seed(0)
        return torch.randn(*idx.shape, self.vocab, generator=gen).to(self.dtype)


def test_each_position_is_scored_against_the_next_token():
    tokens = torch.tensor([[1, 4, 2, 3], [0, 0, 5, 1]])
    model = Recorded(vocab=6, dtype=torch.float32)
    loss = lm_loss(model, tokens)
    assert torch.equal(model.seen, tokens[:, :-1])  # the last token is only a target
    logits = model(tokens[:, :-1])
    by_hand = -torch.log_softmax(logits, -1).gather(-1, tokens[:, 1:, None]).mean()
    torch.testing.assert_close(loss, by_hand)


def test_16_bit_logits_are_scored_in_fp32():
    tokens = torch.tensor([[1, 4, 2, 3]])
    loss = lm_loss(Recorded(vocab=6, dtype=torch.bfloat16), tokens)
    assert loss.dtype == torch.float32
    logits = Recorded(vocab=6, dtype=torch.bfloat16)(tokens[:, :-1]).float()
    by_hand = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
    torch.testing.assert_close(loss, by_hand, rtol=0, atol=0)
