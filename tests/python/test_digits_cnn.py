"""The digits CNN (examples/digits_cnn.py) trained by Adept and by PyTorch with the same recipe,
the same initial weights and the same batch order: the losses follow the same trajectory and
Adept reaches PyTorch's held-out accuracy."""
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
import digits_cnn  # noqa: E402

EPOCHS = 6


def test_digits_cnn_matches_pytorch(m):
    torch.set_num_threads(2)
    adept_losses, adept_acc, init = digits_cnn.train(m, epochs=EPOCHS, log=lambda s: None)
    torch_losses, torch_acc, torch_init = digits_cnn.train(torch, epochs=EPOCHS, init=init, log=lambda s: None)
    for k in init:
        np.testing.assert_array_equal(init[k], torch_init[k], err_msg=k)
    # Same weights, data and order: the first steps agree up to float32 rounding; later steps drift apart
    # only slowly (BatchNorm and ReLU keep the trajectories close).
    np.testing.assert_allclose(adept_losses[:10], torch_losses[:10], rtol=1e-3, atol=1e-4)
    assert abs(np.mean(adept_losses[-20:]) - np.mean(torch_losses[-20:])) < 0.05
    assert torch_acc > 0.95
    assert adept_acc >= torch_acc - 0.015, (adept_acc, torch_acc)
