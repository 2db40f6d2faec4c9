"""`--val DIR` scores top-1 / top-5 after each epoch; `--eval-only --weights FILE` scores trained weights alone."""
import pytest
import torch
import torchvision

from test_resnet50 import assert_every_figure_declared, of, result, run_inprocess
from test_resnet50_parts import make_image_folder
from workloads.resnet50.evaluate import count_topk

CLASSES = ("a", "b", "c", "d", "e", "f")


def ranked_weights(path, classes=len(CLASSES)):
    """Weights whose logits are the classifier's bias whatever the image: class 0 first, then 1, 2..."""
    model = torchvision.models.resnet50(weights=None, num_classes=classes)
    state = model.state_dict()
    state["fc.weight"].zero_()
    state["fc.bias"].copy_(torch.arange(classes, 0, -1, dtype=torch.float32))
    torch.save(state, path)
    return path


def test_top_k_counts_a_label_among_the_k_highest_logits():
    logits = torch.tensor([[0.1, 0.9, 0.0], [0.8, 0.1, 0.3], [0.2, 0.3, 0.5]])
    labels = torch.tensor([1, 2, 0])
    assert count_topk(logits, labels, 1) == 1  # only the first row's best guess is right
    assert count_topk(logits, labels, 2) == 2  # row 2's label is its second guess; row 3's is its last
    assert count_topk(logits, labels, 5) == 3  # k beyond the classes: every label counts


def test_eval_only_scores_the_weights_as_a_hand_count(tmp_path, capfd):
    val = make_image_folder(tmp_path / "val", per_class=2, classes=CLASSES, corrupt=0, not_images=0)
    weights = ranked_weights(tmp_path / "ranked.pt")
    code, events = run_inprocess("--eval-only", "--weights", str(weights), "--val", str(val), "--num-classes", "6")
    log = capfd.readouterr().err
    assert code == 0, log
    metrics = result(events)
    # every image is guessed 'a' first and 'a'..'e' as its first five: 2 of 12 and 10 of 12 by hand
    assert metrics["val_top1"] == pytest.approx(2 / 12) and metrics["val_top5"] == pytest.approx(10 / 12)
    assert metrics["val_images"] == 12 and metrics["eval_only"] is True and not of(events, "step")
    assert_every_figure_declared(metrics)
    assert "validation of the --weights: top-1 16.67%, top-5 83.33% on 12 images" in log


def test_training_with_val_scores_each_epoch_and_the_result_carries_the_last(tmp_path, capfd):
    val = make_image_folder(tmp_path / "val", per_class=2, classes=("cat", "dog"), corrupt=1, not_images=0)
    code, events = run_inprocess("--epochs", "2", "--epoch-size", "4", "--val", str(val), "--num-classes", "2")
    log = capfd.readouterr().err
    assert code == 0, log
    metrics = result(events)
    history = metrics["val_history"]
    assert [h["epoch"] for h in history] == [1, 2] and all(h["images"] == 4 for h in history)
    assert metrics["val_top1"] == history[-1]["top1"] and 0 <= metrics["val_top1"] <= 1
    assert metrics["val_top5"] is None  # two classes: a top-5 figure would always read 100 %
    assert metrics["val_skipped_files"] == 1  # the broken file is counted, and stood in for
    assert_every_figure_declared(metrics)
    assert "validation after epoch 1: top-1" in log and "validation after epoch 2: top-1" in log
    assert len(of(events, "step")) == 4  # evaluating adds no step


def test_a_split_with_other_classes_than_the_training_data_is_refused_before_a_step(tmp_path, capfd):
    train = make_image_folder(tmp_path / "train", per_class=2, classes=("cat", "dog"), corrupt=0, not_images=0)
    val = make_image_folder(tmp_path / "val", per_class=1, classes=("bird", "cat"), corrupt=0, not_images=0)
    code, events = run_inprocess("--data", str(train), "--num-workers", "0", "--val", str(val), "--steps", "1")
    assert code == 2 and not of(events, "step") and "Traceback" not in capfd.readouterr().err
    (error,) = of(events, "error")
    assert error.message.startswith(f"--val {val} has other class folders than the training data")


@pytest.mark.parametrize("argv, said", [
    (["--eval-only", "--val", "VAL"], "--eval-only evaluates trained weights on a validation split"),
    (["--val", "MISSING", "--steps", "1"], "--val MISSING does not exist"),
])
def test_bad_val_options_are_one_line_before_anything_runs(tmp_path, capfd, argv, said):
    (tmp_path / "val" / "a").mkdir(parents=True)
    argv = [a.replace("VAL", str(tmp_path / "val")).replace("MISSING", str(tmp_path / "nowhere")) for a in argv]
    said = said.replace("MISSING", str(tmp_path / "nowhere"))
    code, events = run_inprocess(*argv)
    assert code == 2 and [e.kind for e in events] == ["error", "end"]
    assert of(events, "error")[0].message == said
    assert "Traceback" not in capfd.readouterr().err
