"""The verdict's words, and where the card's rate comes from (a ResNet-50 run found without opening a soak's
events, --consumer-rate, the rated bound)."""

from __future__ import annotations

import json

from workloads.dataio import consumer, storage, words
from workloads.dataio.consumer import Consumer
from workloads.dataio.verdict import judge

ROWS = [{"workers": 0, "images_per_s": 201.0}, {"workers": 1, "images_per_s": 183.0},
        {"workers": 2, "images_per_s": 402.0}]


def _said(rows, card, cold, kind, **more):
    """The verdict's figures as the result holds them, and its sentence in English and Chinese."""
    v = judge(rows, card.at(64) if card else None, cold, kind)
    m = {"verdict": v.kind, "loader_workers": v.workers, "loader_images_per_s": v.images_per_s, "image_size": 64,
         "data_kind": kind, "cold_files_s": cold, **more}
    if card is not None:
        m.update(consumer_images_per_s=card.at(64), consumer_basis=card.basis, consumer_run=card.run,
                 consumer_image_size=card.image_size, consumer_steps=card.steps,
                 consumer_measured_images_per_s=card.rate if card.image_size not in (None, 64) else None)
    said = words.verdict_words(m)
    return v, said("en"), said("zh")


def test_compute_bound_names_the_fewest_workers_that_keep_up_and_never_fewer_than_one():
    """The in-process loader (0 workers) gave 201 images/s, enough for 160: still the advice is one or more."""
    v, en, zh = _said(ROWS, Consumer(160.0, consumer.GIVEN), 5000.0, "local")
    assert v.kind == "compute-bound" and v.workers == 1 and v.images_per_s == 183.0
    assert en == ("at 64 px the loader gives 183 images/s with 1 worker(s); the card trains at 160 images/s "
                  "(--consumer-rate, taken as at 64 px): compute-bound, the loader keeps up; use 1 or more worker(s)")
    assert "请用 1 个或更多工作进程" in zh and "计算受限" in zh
    assert judge(ROWS, 300.0, None, "local").workers == 2   # 183 < 330, 402 >= 330
    only_in_process = [{"workers": 0, "images_per_s": 500.0}, {"workers": 1, "images_per_s": None, "error": "x"}]
    assert judge(only_in_process, 100.0, None, "local").workers == 1
    assert judge(only_in_process, None, None, "local").workers == 1


def test_the_card_is_read_at_the_loaders_image_size_and_a_scaled_rate_says_so():
    """A ResNet-50 run at 224 px gave 1,470 images/s; the loader made 64 px crops: 1,470 x (224/64)^2 = 18,008."""
    run = Consumer(1470.0, consumer.COMPUTE, "20261206-resnet50-ab", 224)
    assert round(run.at(64)) == 18008 and run.at(224) == 1470.0
    assert Consumer(5.0, consumer.GIVEN).at(64) == 5.0   # a rate of no known size is taken at the loader's
    v, en, zh = _said(ROWS, run, None, "local")
    assert v.kind == "data-bound" and v.workers == 2
    assert ("the card trains at 18,008 images/s (ResNet-50 run 20261206-resnet50-ab at 224 px: its compute-only "
            "images/s; 1,470 images/s at 224 px, scaled by pixels to 64 px): data-bound") in en
    assert "按像素数换算到 64 px" in zh and "数据受限" in zh
    same = Consumer(150.0, consumer.STEPS, "r1", 64, steps=5)
    _, en, _ = _said(ROWS, same, None, "local")
    assert "(ResNet-50 run r1 at 64 px, ended without a result: the median compute-only images/s of its last 5 " \
           "step(s)): compute-bound" in en and "scaled" not in en


def test_data_bound_when_no_worker_count_reaches_the_card_and_the_rated_bound_is_an_upper_one():
    v, en, _ = _said(ROWS, Consumer(2500.0, consumer.GIVEN), 90000.0, "local")
    assert v.kind == "data-bound" and v.workers == 2 and "402 images/s with 2 worker(s) (its best)" in en
    assert "the card trains at 2,500 images/s" in en
    _, en, zh = _said(ROWS, Consumer(40000.0, consumer.RATED, "NVIDIA H200", 64), None, None)
    assert "the card trains at up to 40,000 images/s (the rated bound of NVIDIA H200 at 64 px" in en
    assert "至多 40,000 images/s" in zh


def test_storage_bound_names_a_local_folder_with_room():
    v, en, zh = _said(ROWS, Consumer(1000.0, consumer.GIVEN), 150.0, "network", room_where="/scratch",
                      room_free_bytes=800 * 10**9)
    assert v.kind == "storage-bound"
    assert en.endswith("storage-bound: copy the data to local disk (/scratch has 800 GB free)")
    assert "150 files/s cold" in en and "/scratch 有 800 GB 可用" in zh
    # tmpfs has no cold read: never storage-bound
    assert judge(ROWS, 1000.0, 150.0, "memory").kind == "data-bound"


def test_without_a_card_rate_it_says_how_to_get_one():
    v, en, zh = _said(ROWS, None, None, "local")
    assert v.kind == "no card rate" and v.workers == 2
    assert "no card rate to compare with: run `cardbench run resnet50`" in en and "--consumer-rate" in en
    assert "没有加速卡速率可对照" in zh
    assert judge([{"workers": 0, "images_per_s": None, "error": "x"}], None, None, None).kind == "no figure"


def test_a_run_from_before_the_figures_says_its_verdict_as_written():
    old = {"verdict": "compute-bound", "verdict_line": "the loader gives 201 images/s with 0 worker(s)"}
    assert words.verdict_words(old) == "the loader gives 201 images/s with 0 worker(s)"


def _run(root, name, workload, metrics=None, events_text=None):
    d = root / name
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"workload": workload, "args": []}))
    lines = [json.dumps({"event": "start"}), json.dumps({"event": "result", "metrics": metrics or {}})]
    (d / "events.jsonl").write_text(events_text if events_text is not None else "\n".join(lines) + "\n")


def test_the_card_rate_comes_from_the_newest_resnet50_run_on_the_same_card(tmp_path, monkeypatch):
    h200 = "cuda:0 (NVIDIA H200)"
    _run(tmp_path, "20261201-100000-resnet50-aaaa", "resnet50", {"images_per_s": 900.0, "device": h200})
    _run(tmp_path, "20261202-100000-resnet50-bbbb", "resnet50",
         {"images_per_s": 1500.0, "images_per_s_compute": 1700.0, "device": h200})
    _run(tmp_path, "20261203-100000-resnet50-cccc", "resnet50", {"images_per_s": 50.0, "device": "cpu (x86_64)"})
    _run(tmp_path, "20261204-100000-soak-dddd", "soak", events_text="x" * 3000)
    opened = []
    real = consumer._read_bounded
    monkeypatch.setattr(consumer, "_read_bounded", lambda p, *a, **k: opened.append(p.parent.name + "/" + p.name)
                        or real(p, *a, **k))
    found = consumer.find("cuda:1 (NVIDIA H200)", None, tmp_path)
    assert found.rate == 1700.0 and found.run == "20261202-100000-resnet50-bbbb" and found.basis == consumer.COMPUTE
    assert "20261204-100000-soak-dddd/config.json" in opened
    assert "20261204-100000-soak-dddd/events.jsonl" not in opened   # a soak's events are never opened
    assert consumer.find("cpu (x86_64, 2 threads)", None, tmp_path).rate == 50.0
    assert consumer.find("cuda:0 (NVIDIA H200)", 333.0, tmp_path).basis == consumer.GIVEN


def test_without_a_run_the_rated_bound_is_said_as_a_bound(tmp_path):
    bound = consumer.find("cuda:0 (NVIDIA H200)", None, tmp_path / "none")
    assert bound.bound and round(bound.rate) == round(989.5 * 1000 / 24.5) and bound.image_size == 224
    assert consumer.find("cpu (x86_64, 2 threads)", None, tmp_path) is None


def test_a_torn_or_foreign_run_is_skipped(tmp_path):
    _run(tmp_path, "b", "resnet50", events_text='{"event":"result","metrics":{"images_per_s"')
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "config.json").write_text("[1, 2")
    assert consumer.from_runs(tmp_path, "cpu") is None


def test_storage_splits_its_files_so_a_cold_read_is_never_warmed_by_the_other(tmp_path):
    files = [(f"/x/{i}", size) for i, size in enumerate([5, 900, 30, 70, 1000, 2, 400, 8])]
    big, small = storage.split(files)
    assert not {p for p, _ in big} & {p for p, _ in small} and len(big) + len(small) == 8
    assert min(s for _, s in big) >= max(s for _, s in small)


def test_storage_reads_without_writing_and_tmpfs_has_no_cold_read(tmp_path):
    for i in range(6):
        (tmp_path / f"{i}.jpg").write_bytes(b"\xff\xd8\xff" + bytes(2000 * (i + 1)))
    before = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.iterdir()}
    files = [(str(p), p.stat().st_size) for p in tmp_path.iterdir()]
    m = storage.measure(files, "local", 0.05)
    assert m["warm_files_s"] > 0 and m["warm_seq_mb_s"] > 0 and "cold_note" in m
    assert ("cold_files_s" in m) == m["cold_note"].startswith("page cache dropped")
    assert {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.iterdir()} == before
    mem = storage.measure(files, "memory", 0.05)
    assert mem["cold_note"] == "in memory (tmpfs): no cold read" and "cold_files_s" not in mem
    assert "warm" in storage.describe(mem) and "cold" not in storage.describe(mem).split("(")[0]


def test_a_resnet50_run_stopped_before_its_result_gives_its_steps_compute_only_rate(tmp_path):
    steps = [{"event": "start", "device": "cpu (x86_64, 2 threads)", "config": {"image_size": 64}},
             {"event": "step", "step": 1, "throughput": 1.0, "step_s": 16.0, "compute_s": 16.0, "warmup": True},
             *({"event": "step", "step": i, "throughput": 8.0, "step_s": 2.0, "compute_s": 1.0} for i in (2, 3, 4))]
    _run(tmp_path, "20261204-094439-resnet50-26b6", "resnet50",
         events_text="\n".join(json.dumps(e) for e in steps) + "\n")
    found = consumer.from_runs(tmp_path, "cpu (x86_64, 1 threads)")
    assert found.rate == 16.0   # 8 images/s over 2 s steps of which 1 s computed; the warm-up step left out
    assert (found.basis, found.image_size, found.steps) == (consumer.STEPS, 64, 3)   # the size its start said
