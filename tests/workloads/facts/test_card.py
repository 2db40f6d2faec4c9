"""A card named for a plan (`workloads.facts.card`) and a memory size as a user writes it
(`workloads.facts.memory_size`): found by the words of its name, refused with the close names, sizes in GiB."""

import pytest

from workloads.facts.card import UnknownCard, named_card
from workloads.facts.memory_size import memory_size

GIB = 2**30


@pytest.mark.parametrize("name, device, memory, bandwidth", [
    ("Ascend 910B3", "Huawei Ascend 910B3", 64, 1600),
    ("NVIDIA A100 80GB", "NVIDIA A100 80GB (form factor not named)", 80, 2039),
    ("A100 80GB PCIe", "NVIDIA A100 PCIe 80GB", 80, 1935),
    ("H100-SXM", "NVIDIA H100 SXM5 80GB", 80, 3350),
    ("rtx 5090", "NVIDIA GeForce RTX 5090", 32, 1792),
])
def test_a_named_card_has_its_rated_memory_and_bandwidth(name, device, memory, bandwidth):
    card = named_card(name)
    assert (card.name, card.memory_bytes, card.bandwidth_gbps) == (device, memory * GIB, bandwidth)


def test_an_unknown_card_lists_the_close_names_and_one_without_a_memory_size_is_refused():
    with pytest.raises(UnknownCard, match=r"unknown card 'H800'; close: .*NVIDIA H100 SXM5 80GB"):
        named_card("H800")
    with pytest.raises(UnknownCard, match=r"'A100' is NVIDIA A100 \(variant not named\), whose memory size .* close: "
                                          r".*NVIDIA A100 SXM4 80GB"):
        named_card("A100")
    with pytest.raises(UnknownCard) as caught:
        named_card("zzz")
    assert "\n" not in str(caught.value) and "rated.csv holds the memory of" in str(caught.value)


@pytest.mark.parametrize("name", ["NVIDIA H100", "H100", "h100 80GB"])
def test_a_name_that_fits_two_cards_the_plan_reads_apart_is_refused_with_both(name):
    """"NVIDIA H100" took the SXM5 part (3,350 GB/s) silently where the PCIe part (2,000 GB/s) is also a card a user
    rents: the plan's decode bound and cost would be another card's."""
    with pytest.raises(UnknownCard) as caught:
        named_card(name)
    said = str(caught.value)
    assert "names more than one card" in said and "NVIDIA H100 SXM5 80GB" in said and "NVIDIA H100 PCIe 80GB" in said
    assert "\n" not in said


@pytest.mark.parametrize("name, device", [("H100 SXM", "NVIDIA H100 SXM5 80GB"), ("H100 PCIe", "NVIDIA H100 PCIe 80GB"),
                                          ("H200", "NVIDIA H200 SXM 141GB"), ("rtx 4090", "NVIDIA GeForce RTX 4090")])
def test_a_word_of_one_card_s_name_or_a_rival_without_a_memory_size_leaves_one_card(name, device):
    assert named_card(name).name == device   # the H200 NVL and RTX 4090 D have no memory size: nothing to plan


@pytest.mark.parametrize("text, size", [("32GB", 32 * GIB), ("80GiB", 80 * GIB), ("24576MiB", 24 * GIB),
                                        ("0.5T", GIB * 512), (" 16 gb ", 16 * GIB)])
def test_a_memory_size_is_read_in_powers_of_two(text, size):
    assert memory_size(text) == size


@pytest.mark.parametrize("text, said", [("0", "is no memory"), ("0GB", "is no memory"), ("-3", "is no memory"),
                                        ("32XB", "is not a size"), ("32", "has no unit"), ("GB", "is not a size"),
                                        ("2PB", "is not a size"), ("9e9TB", "more than any card holds")])
def test_what_is_not_a_memory_size_is_one_line(text, said):
    with pytest.raises(ValueError, match=said):
        memory_size(text)
