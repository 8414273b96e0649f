"""A small CNN trained on scikit-learn's digits, with Adept or, for comparison, PyTorch.

Data: 1797 8x8 grey images of digits 0-9 (scikit-learn's bundled copy of the UCI dataset), split
80/20 with a fixed seed. Model: two Conv2d(3x3, padding 1) + BatchNorm2d + ReLU + MaxPool2d(2)
blocks (16 and 32 channels), Flatten, Linear(128, 10). Recipe: SGD (momentum 0.9, nesterov,
weight decay 5e-4), cosine learning-rate schedule, cross-entropy loss, batches drawn in the same
seeded order for both libraries. The script is written once against the API both libraries share,
so `--lib torch` runs the identical recipe in PyTorch; with `--same-init` PyTorch starts from
Adept's initial weights. Prints loss and held-out accuracy per epoch.
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_digits


def load_split(seed):
    """(x_train, y_train, x_test, y_test) as numpy arrays; x is (N, 1, 8, 8) float32 in [0, 1]."""
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_train = int(0.8 * len(x))
    tr, te = order[:n_train], order[n_train:]
    return x[tr], y[tr], x[te], y[te]


def build_model(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))


def state_as_numpy(model):
    return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}


def train(lib, epochs=15, batch=64, lr=0.05, seed=0, init=None, log=print):
    """Trains the CNN with `lib` (the adept or torch module). `init`: a {name: ndarray} state dict to
    start from. Returns (per-step losses, final test accuracy, initial state as numpy)."""
    x_train, y_train, x_test, y_test = load_split(seed)
    lib.manual_seed(seed)
    model = build_model(lib)
    if init is not None:
        model.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in init.items()})
    start = state_as_numpy(model)
    opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    F = lib.nn.functional
    xt, yt = lib.from_numpy(x_test), lib.from_numpy(y_test)
    order_rng = np.random.default_rng(seed + 1)
    losses, acc = [], 0.0
    steps = (len(x_train) + batch - 1) // batch
    for epoch in range(epochs):
        model.train()
        t0 = time.time()
        perm = order_rng.permutation(len(x_train))
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            xb, yb = lib.from_numpy(x_train[idx]), lib.from_numpy(y_train[idx])
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        sched.step()
        model.eval()
        with lib.no_grad():
            acc = (model(xt).argmax(dim=1) == yt).float().mean().item()
        log(f"epoch {epoch + 1:3d}  loss {np.mean(losses[-steps:]):.4f}  "
            f"test accuracy {acc:.4f}  ({time.time() - t0:.2f} s)")
    return losses, acc, start


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", choices=("adept", "torch"), default="adept")
    p.add_argument("--same-init", action="store_true", help="with --lib torch: start from Adept's initial weights")
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    init = None
    if args.lib == "torch" and args.same_init:
        import adept
        adept.manual_seed(args.seed)
        init = state_as_numpy(build_model(adept))
    lib = __import__(args.lib)
    _, acc, _ = train(lib, epochs=args.epochs, seed=args.seed, init=init)
    print(f"{args.lib}: final test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
