"""The ResNet-50 workload's parts on small inputs: checkpoints, image folders."""
import os
import pickle
import subprocess
import sys

import pytest
import torch
from torch import nn

from workloads.resnet50 import checkpoint
from workloads.resnet50 import checkpoint_lock
from workloads.resnet50 import imagedata
from workloads.child.harness import WorkloadError

CPU = torch.device("cpu")


# --- checkpoints --------------------------------------------------------------------------------

def test_checkpoint_round_trip_and_foreign_files(tmp_path):
    import torchvision

    model = torchvision.models.resnet18(num_classes=3)  # the shape checks are generic; resnet18 is quick
    path = checkpoint.save(tmp_path / "ckpt", {"model": model.state_dict(), "epoch": 2})
    assert path.name == checkpoint.FILENAME and not list(path.parent.glob("*.partial"))
    data = checkpoint.read(path)
    assert data["format"] == checkpoint.FORMAT and data["epoch"] == 2
    state = checkpoint.model_state(data)
    assert checkpoint.head_classes(state) == 3
    checkpoint.load_model(torchvision.models.resnet18(num_classes=3), state, "it")

    ddp_style = {f"module.{k}": v for k, v in state.items()}
    assert set(checkpoint.model_state({"state_dict": ddp_style})) == set(state)

    with pytest.raises(WorkloadError, match="3-class head, this run has 5 classes"):
        checkpoint.load_model(torchvision.models.resnet18(num_classes=5), state, "it")
    checkpoint.load_model(torchvision.models.resnet18(num_classes=5), state, "it", ignore_head=True)
    with pytest.raises(WorkloadError, match="is not a ResNet-50 checkpoint"):
        checkpoint.load_model(model, nn.Linear(2, 2).state_dict(), "it")

    with pytest.raises(WorkloadError, match="does not exist"):
        checkpoint.read(tmp_path / "missing.pt")


UNSAFE_ADVICE = ("weights_only", "safe_globals", "Weights only")


def _unreadable(path, what="weights file", advised=True):
    """The one-line refusal of ``path``; ``advised``: torch's own error for it carries the unsafe advice the
    refusal must leave out (so the test proves it is stripped, not merely that torch never gave it)."""
    with pytest.raises(Exception) as raw:
        torch.load(path, map_location="cpu", weights_only=True)
    assert any(a in str(raw.value) for a in UNSAFE_ADVICE) == advised, str(raw.value)
    with pytest.raises(WorkloadError) as failed:
        checkpoint.read(path, what=what)
    said = f"{failed.value.message} | {failed.value.hint}"
    assert failed.value.exit_code == 2 and "\n" not in said and "\x1b" not in said
    assert not any(a in said for a in UNSAFE_ADVICE), said  # never advice to load unsafely
    assert failed.value.message.startswith(f"{what} {path} is damaged or not a state dict: ")
    return failed.value


def test_a_damaged_or_foreign_file_never_echoes_advice_to_load_it_unsafely(tmp_path):
    import numpy

    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    assert "it does not unpickle (Unsupported operand" in _unreadable(junk).message
    whole = tmp_path / "whole.pt"
    torch.save({"fc.weight": torch.zeros(2, 2)}, whole)
    cut = tmp_path / "cut.pt"
    cut.write_bytes(whole.read_bytes()[:300])
    error = _unreadable(cut, what="checkpoint", advised=False)   # a zip error: torch gives no advice there
    assert error.message.endswith("failed finding central directory") and "copy it again" in error.hint
    for name, content in (("numpy.pt", {"a": numpy.zeros(3)}), ("module.pt", nn.Linear(2, 2))):
        torch.save(content, tmp_path / name)
        error = _unreadable(tmp_path / name)
        assert "not tensors alone" in error.message and "torch.save(model.state_dict(), PATH)" in error.hint
    assert "it holds torch.nn.modules.linear.Linear" in error.message


# torch's wordings of a failed safe load that no file of this torch gives (older and newer releases word it
# otherwise): each branch of the reading must still drop the advice to load the file unsafely
@pytest.mark.parametrize("text", [
    "Weights only load failed. Re-running `torch.load` with `weights_only` set to `False` will likely succeed",
    "WeightsUnpickler error: Unsupported class f; allowlist it with `torch.serialization.add_safe_globals([f])`",
    "Weights only load failed: use weights_only=False if you trust the file",
])
def test_torch_advice_to_load_unsafely_is_dropped_whatever_its_wording(text):
    detail, hint = checkpoint._load_failure(pickle.UnpicklingError(text))
    said = f"{detail} | {hint}"
    assert not any(a in said for a in UNSAFE_ADVICE), said
    assert detail == "it does not unpickle as tensors and plain containers" and "copy it again" in hint


@pytest.mark.parametrize("field, value", [("epoch", "two"), ("step", -1), ("num_classes", 0), ("epoch", 2.5)])
def test_a_checkpoint_with_a_damaged_counter_is_one_line_naming_the_file(field, value):
    with pytest.raises(WorkloadError, match=rf"^checkpoint /d/resnet50-last.pt is damaged: its '{field}' is "
                                            rf"{value!r}, not a whole number of [01] or more$"):
        checkpoint.counters({"epoch": 2, "step": 10, "num_classes": 10, field: value}, "checkpoint /d/resnet50-last.pt")
    checkpoint.counters({"epoch": 2, "step": 10, "num_classes": None}, "fine")


def hold_checkpoint_lock(directory):
    """Another live run's lock on ``directory``: a process holding it until killed."""
    code = ("import time\nfrom workloads.resnet50.checkpoint_lock import CheckpointLock\n"
            f"CheckpointLock({str(directory)!r}).acquire()\nprint('held', flush=True)\ntime.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"held\n"
    return proc


def dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_checkpoint_directory_held_by_a_live_run_is_refused_naming_its_pid(tmp_path):
    directory = tmp_path / "ckpt"
    holder = hold_checkpoint_lock(directory)
    try:
        with pytest.raises(WorkloadError, match=rf"another run \(pid {holder.pid}\) is using --checkpoint") as refused:
            checkpoint_lock.CheckpointLock(directory).acquire()
        assert refused.value.exit_code == 2 and "another --checkpoint DIR" in refused.value.hint
    finally:
        holder.kill()
        holder.wait()
    # the killed run left its lock file; the kernel dropped its lock, so the next run takes it over
    assert (directory / checkpoint_lock.LOCK_NAME).read_text().strip() == str(holder.pid)
    with checkpoint_lock.CheckpointLock(directory) as lock:
        assert lock.path.read_text().strip() == str(os.getpid())
    assert not lock.path.exists() and directory.is_dir()


def test_a_stale_lock_and_a_dead_runs_partial_save_are_taken_over(tmp_path):
    directory = tmp_path / "ckpt"
    directory.mkdir()
    (directory / checkpoint_lock.LOCK_NAME).write_text(f"{dead_pid()}\n")
    (directory / "resnet50-last.pt.123.partial").write_bytes(b"half a save")
    (directory / "unrelated.partial").write_bytes(b"not ours")
    lock = checkpoint_lock.CheckpointLock(directory).acquire()
    assert sorted(p.name for p in directory.iterdir()) == [checkpoint_lock.LOCK_NAME, "unrelated.partial"]
    lock.release()
    lock.release()  # twice is harmless
    assert [p.name for p in directory.iterdir()] == ["unrelated.partial"]
    # a directory the lock made is removed again when nothing was saved in it
    with checkpoint_lock.CheckpointLock(tmp_path / "new" / "dir"):
        assert (tmp_path / "new" / "dir").is_dir()
    assert not (tmp_path / "new" / "dir").exists()


def test_a_save_writes_through_a_temporary_name_of_its_own(tmp_path):
    other = tmp_path / "resnet50-last.pt.partial"  # another writer's file in the middle of a save
    other.write_bytes(b"someone else's")
    path = checkpoint.save(tmp_path, {"epoch": 1})
    assert checkpoint.read(path)["epoch"] == 1
    assert other.read_bytes() == b"someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == [checkpoint.FILENAME, other.name]


# --- image folders ------------------------------------------------------------------------------

def make_image_folder(root, per_class=3, classes=("cat", "dog"), corrupt=1, not_images=1):
    from PIL import Image

    for c, name in enumerate(classes):
        (root / name).mkdir(parents=True)
        for i in range(per_class):
            Image.new("RGB", (40, 40), (40 * i, 100 * c, 0)).save(root / name / f"{i}.png")
    for i in range(corrupt):
        (root / classes[-1] / f"broken{i}.jpg").write_bytes(b"\xff\xd8\xff not really a jpeg")
    for i in range(not_images):
        (root / classes[0] / f"notes{i}.txt").write_text("not an image")
    return root


def test_image_folder_replaces_and_reports_unreadable_files(tmp_path):
    root = make_image_folder(tmp_path / "data")
    dataset = imagedata.folder_dataset(imagedata.check_folder(str(root)), 32)
    assert dataset.not_images == ["cat/notes0.txt"] and dataset.classes == ["cat", "dog"]
    broken = next(i for i in range(len(dataset)) if dataset.path(i).endswith("broken0.jpg"))
    image, label, bad = dataset[broken]
    assert image.shape == (3, 32, 32) and bad == [broken]  # the next readable image stands in
    images, labels, bad = imagedata.collate_readable([dataset[0], dataset[broken]])
    assert images.shape == (2, 3, 32, 32) and bad == [broken]

    batches = imagedata.LoaderBatches(dataset, "test", batch_size=2, num_workers=0, pin_memory=False)
    seen = []
    for _, _, bad in batches.epoch(1):
        seen += batches.note_skipped(bad)
    assert seen == ["dog/broken0.jpg"]
    assert batches.skipped.count == 2 and batches.skipped.examples() == ["cat/notes0.txt", "dog/broken0.jpg"]


def test_an_image_over_pils_pixel_limit_is_skipped_and_counted(tmp_path, monkeypatch):
    from PIL import Image

    root = make_image_folder(tmp_path / "data", corrupt=0, not_images=0)
    Image.new("RGB", (100, 100)).save(root / "dog" / "huge.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 2000)  # 40x40 is under it; 100x100 is over twice it: an error
    with pytest.raises(Image.DecompressionBombError):
        Image.open(root / "dog" / "huge.png")
    dataset = imagedata.folder_dataset(imagedata.check_folder(str(root)), 32)
    huge = next(i for i in range(len(dataset)) if dataset.path(i).endswith("huge.png"))
    image, _, bad = dataset[huge]
    assert image.shape == (3, 32, 32) and bad == [huge]
    batches = imagedata.LoaderBatches(dataset, "test", batch_size=2, num_workers=0, pin_memory=False)
    seen = [path for _, _, bad in batches.epoch(1) for path in batches.note_skipped(bad)]
    assert seen == ["dog/huge.png"] and batches.skipped.count == 1


def test_image_folder_checks(tmp_path):
    with pytest.raises(WorkloadError, match="does not exist"):
        imagedata.check_folder(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(WorkloadError, match="holds no class folders"):
        imagedata.check_folder(str(tmp_path / "empty"))
    only_text = make_image_folder(tmp_path / "text", per_class=0, classes=("a",), corrupt=0)
    with pytest.raises(WorkloadError, match=r"holds no images \(1 non-image files skipped\)"):
        imagedata.folder_dataset(imagedata.check_folder(str(only_text)), 32)
    small = make_image_folder(tmp_path / "small", per_class=1, classes=("a",), corrupt=0, not_images=0)
    with pytest.raises(WorkloadError, match="fewer than one batch"):
        imagedata.LoaderBatches(imagedata.folder_dataset(small, 32), "small", 4, 0, False)


# --- data-parallel process count ----------------------------------------------------------------

def test_process_count_checks_gpus_against_the_devices_present(monkeypatch):
    from workloads.child import data_parallel

    assert data_parallel.process_count("2", "cpu") == 2  # CPU processes: no device to count
    with pytest.raises(WorkloadError, match="needs an accelerator"):
        data_parallel.process_count("all", "cpu")
    with pytest.raises(WorkloadError, match="a number or 'all'"):
        data_parallel.process_count("two", "cpu")
    with pytest.raises(WorkloadError, match="at least 1"):
        data_parallel.process_count("0", "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert data_parallel.process_count("all", "auto") == 2
    assert data_parallel.process_count("2", "cuda") == 2
    with pytest.raises(WorkloadError, match="--gpus 4 but this machine has 2 cuda device"):
        data_parallel.process_count("4", "cuda:0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(WorkloadError, match="found no accelerator"):
        data_parallel.process_count("2", "auto")
