"""End-to-end demo: a 2-layer MLP trained with Adept's autograd on scikit-learn's digits.

Data: 1797 8x8 grey images of digits 0-9 (scikit-learn's bundled copy of the UCI dataset), split
80/20 with a fixed seed. Model: 64 -> 128 (ReLU) -> 10, cross-entropy via log_softmax, SGD with
momentum. Prints the loss per epoch and the held-out accuracy (expected > 0.95).
Runs on the device named by --device or the ADEPT_DEVICE environment variable ("cpu", "vulkan").
"""
import argparse
import os
import time

import numpy as np
from sklearn.datasets import load_digits

import adept


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default=os.environ.get("ADEPT_DEVICE", "cpu"))
    args = p.parse_args()
    dev = args.device

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(x))
    n_train = int(0.8 * len(x))
    tr, te = order[:n_train], order[n_train:]
    x_train, y_train = adept.from_numpy(x[tr]), adept.from_numpy(y[tr])
    x_test, y_test = adept.from_numpy(x[te]).to(dev), adept.from_numpy(y[te]).to(dev)
    eye = adept.eye(10)

    adept.manual_seed(args.seed)
    w1 = (adept.randn(64, 128) * (2.0 / 64) ** 0.5).to(dev).requires_grad_()
    b1 = adept.zeros(128, device=dev, requires_grad=True)
    w2 = (adept.randn(128, 10) * (1.0 / 128) ** 0.5).to(dev).requires_grad_()
    b2 = adept.zeros(10, device=dev, requires_grad=True)
    params = [w1, b1, w2, b2]
    velocity = [adept.zeros_like(p) for p in params]

    def forward(xb):
        return adept.relu(xb @ w1 + b1) @ w2 + b2

    t0 = time.time()
    for epoch in range(args.epochs):
        perm = adept.randperm(n_train)
        total = 0.0
        for i in range(0, n_train, args.batch):
            idx = perm[i:i + args.batch]
            # Batches are gathered on the host, then moved to the device.
            xb, target = x_train[idx].to(dev), eye[y_train[idx]].to(dev)
            logp = adept.log_softmax(forward(xb), dim=1)
            loss = -(logp * target).sum(dim=1).mean()
            for p_ in params:
                p_.grad = None
            loss.backward()
            with adept.no_grad():
                for p_, v in zip(params, velocity):
                    v.mul_(0.9).add_(p_.grad)
                    p_.sub_(v * args.lr)
            total += loss.item() * xb.shape[0]
        with adept.no_grad():
            acc = (forward(x_test).argmax(dim=1) == y_test).float().mean().item()
        print(f"epoch {epoch + 1:3d}  loss {total / n_train:.4f}  test accuracy {acc:.4f}")
    print(f"trained on {dev} in {time.time() - t0:.1f} s; final test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
