"""PyTorch mirror of Adept's YOLO11 (our own torch.nn code from ../shared/docs/yolo11.md, sections 1-2).

Same architecture and module names as ``adept.models.yolo11`` (and Ultralytics' checkpoints), so a
state dict copies across key for key. ``Yolo11.forward`` returns the three raw maps in training
mode and the decoded (B, 4 + nc, A) predictions in eval mode.
"""
import math

import torch
from torch import nn

# [depth_multiple, width_multiple, max_channels] per scale (sheet 1.1).
SCALES = {"n": (0.50, 0.25, 1024), "s": (0.50, 0.50, 1024), "m": (0.50, 1.00, 512),
          "l": (1.00, 1.00, 512), "x": (1.00, 1.50, 512)}


class Conv(nn.Module):
    """Conv2d (no bias, 'same' padding) -> BatchNorm2d(eps 1e-3, momentum 0.03) -> SiLU or identity."""

    def __init__(self, c_in, c_out, k=1, s=1, g=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, k, s, k // 2, groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c_out, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU() if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


def dwconv(c, k):
    """Depthwise Conv block (c -> c, groups c)."""
    return Conv(c, c, k, g=c)


class Bottleneck(nn.Module):
    def __init__(self, c_in, c_out, k1=3, k2=3, hidden_ratio=0.5, shortcut=True):
        super().__init__()
        hidden = int(c_out * hidden_ratio)
        self.cv1 = Conv(c_in, hidden, k1)
        self.cv2 = Conv(hidden, c_out, k2)
        self.add = shortcut and c_in == c_out

    def forward(self, x):
        out = self.cv2(self.cv1(x))
        return x + out if self.add else out


class C3k(nn.Module):
    def __init__(self, c_in, c_out, n=2):
        super().__init__()
        hidden = int(c_out * 0.5)
        self.cv1 = Conv(c_in, hidden)
        self.cv2 = Conv(c_in, hidden)
        self.cv3 = Conv(2 * hidden, c_out)
        self.m = nn.Sequential(*[Bottleneck(hidden, hidden, hidden_ratio=1.0) for _ in range(n)])

    def forward(self, x):
        return self.cv3(torch.cat([self.m(self.cv1(x)), self.cv2(x)], dim=1))


class C3k2(nn.Module):
    def __init__(self, c_in, c_out, n, use_c3k, e):
        super().__init__()
        self.c = int(c_out * e)
        self.cv1 = Conv(c_in, 2 * self.c)
        self.cv2 = Conv((2 + n) * self.c, c_out)
        self.m = nn.ModuleList([C3k(self.c, self.c) if use_c3k else Bottleneck(self.c, self.c) for _ in range(n)])

    def forward(self, x):
        parts = list(self.cv1(x).chunk(2, dim=1))
        for block in self.m:
            parts.append(block(parts[-1]))
        return self.cv2(torch.cat(parts, dim=1))


class SPPF(nn.Module):
    def __init__(self, c_in, c_out, k=5):
        super().__init__()
        hidden = c_in // 2
        self.cv1 = Conv(c_in, hidden)
        self.cv2 = Conv(4 * hidden, c_out)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        feats = [self.cv1(x)]
        for _ in range(3):
            feats.append(self.m(feats[-1]))
        return self.cv2(torch.cat(feats, dim=1))


class Attention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.key_dim = int(self.head_dim * 0.5)
        self.scale = self.key_dim ** -0.5
        self.qkv = Conv(dim, dim + 2 * self.key_dim * num_heads, act=False)
        self.proj = Conv(dim, dim, act=False)
        self.pe = Conv(dim, dim, 3, g=dim, act=False)

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.qkv(x).view(b, self.num_heads, 2 * self.key_dim + self.head_dim, h * w)
        q, k, v = torch.split(qkv, [self.key_dim, self.key_dim, self.head_dim], dim=2)
        weights = torch.softmax(torch.einsum("bhdn,bhdm->bhnm", q, k) * self.scale, dim=-1)
        out = torch.einsum("bhdm,bhnm->bhdn", v, weights).reshape(b, c, h, w)
        return self.proj(out + self.pe(v.reshape(b, c, h, w)))


class PSABlock(nn.Module):
    def __init__(self, c, num_heads):
        super().__init__()
        self.attn = Attention(c, num_heads)
        self.ffn = nn.Sequential(Conv(c, 2 * c), Conv(2 * c, c, act=False))

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.ffn(x)


class C2PSA(nn.Module):
    def __init__(self, c, n):
        super().__init__()
        self.c = c // 2
        self.cv1 = Conv(c, 2 * self.c)
        self.cv2 = Conv(2 * self.c, c)
        self.m = nn.Sequential(*[PSABlock(self.c, self.c // 64) for _ in range(n)])

    def forward(self, x):
        a, b = self.cv1(x).split([self.c, self.c], dim=1)
        return self.cv2(torch.cat([a, self.m(b)], dim=1))


class Concat(nn.Module):
    def forward(self, xs):
        return torch.cat(xs, dim=1)


class DFL(nn.Module):
    def __init__(self, bins=16):
        super().__init__()
        self.bins = bins
        self.conv = nn.Conv2d(bins, 1, 1, bias=False)
        self.conv.weight = nn.Parameter(torch.arange(bins, dtype=torch.float32).view(1, bins, 1, 1),
                                        requires_grad=False)

    def forward(self, x):  # (B, 4 bins, A) -> (B, 4, A)
        b, _, a = x.shape
        probs = x.reshape(b, 4, self.bins, a).transpose(1, 2).softmax(dim=1)
        return self.conv(probs).view(b, 4, a)


class Detect(nn.Module):
    def __init__(self, nc, ch, strides, reg_max=16):
        super().__init__()
        self.nc, self.reg_max, self.strides = nc, reg_max, strides
        c2 = max(16, ch[0] // 4, 4 * reg_max)
        c3 = max(ch[0], min(nc, 100))
        self.cv2 = nn.ModuleList(nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * reg_max, 1))
                                 for c in ch)
        self.cv3 = nn.ModuleList(nn.Sequential(nn.Sequential(dwconv(c, 3), Conv(c, c3)),
                                               nn.Sequential(dwconv(c3, 3), Conv(c3, c3)),
                                               nn.Conv2d(c3, nc, 1)) for c in ch)
        self.dfl = DFL(reg_max)
        with torch.no_grad():
            for box, cls, s in zip(self.cv2, self.cv3, strides):
                box[-1].bias.fill_(1.0)
                cls[-1].bias.fill_(math.log(5 / nc / (640 / s) ** 2))

    def forward(self, feats):
        maps = [torch.cat([box(f), cls(f)], dim=1) for f, box, cls in zip(feats, self.cv2, self.cv3)]
        if self.training:
            return maps
        return self.decode(maps)

    def decode(self, maps):
        points, strides = [], []
        for m, s in zip(maps, self.strides):
            h, w = m.shape[2:]
            ys, xs = torch.meshgrid(torch.arange(h, dtype=m.dtype) + 0.5, torch.arange(w, dtype=m.dtype) + 0.5,
                                    indexing="ij")
            points.append(torch.stack([xs.flatten(), ys.flatten()]))  # (2, h w)
            strides.append(torch.full((h * w,), float(s), dtype=m.dtype))
        points, strides = torch.cat(points, dim=1), torch.cat(strides)
        flat = torch.cat([m.flatten(2) for m in maps], dim=2)
        dist = self.dfl(flat[:, :4 * self.reg_max])
        left_top, right_bottom = dist[:, :2], dist[:, 2:]
        centre = points + (right_bottom - left_top) / 2
        size = left_top + right_bottom
        boxes = torch.cat([centre, size], dim=1) * strides
        return torch.cat([boxes, flat[:, 4 * self.reg_max:].sigmoid()], dim=1)


class Yolo11(nn.Module):
    def __init__(self, scale="n", nc=80):
        super().__init__()
        depth, width, max_ch = SCALES[scale]
        force_c3k = scale in "mlx"

        def w(c):
            return math.ceil(min(c, max_ch) * width / 8) * 8

        n = max(round(2 * depth), 1)
        layers, self.sources, ch = [], [], []

        def add(module, c_out, src=-1):
            layers.append(module)
            self.sources.append(src)
            ch.append(c_out)

        def conv(c):
            add(Conv(ch[-1] if ch else 3, w(c), 3, 2), w(c))

        def c3k2(c, use_c3k, e=0.5):
            add(C3k2(ch[-1], w(c), n, use_c3k or force_c3k, e), w(c))

        def up():
            add(nn.Upsample(scale_factor=2, mode="nearest"), ch[-1])

        def cat(skip):
            add(Concat(), ch[-1] + ch[skip], [-1, skip])

        conv(64), conv(128), c3k2(256, False, 0.25), conv(256), c3k2(512, False, 0.25), conv(512)
        c3k2(512, True), conv(1024), c3k2(1024, True)
        add(SPPF(ch[-1], w(1024)), w(1024))
        add(C2PSA(ch[-1], n), ch[-1])
        up(), cat(6), c3k2(512, False), up(), cat(4), c3k2(256, False)
        conv(256), cat(13), c3k2(512, False), conv(512), cat(10), c3k2(1024, True)
        heads = [16, 19, 22]
        add(Detect(nc, [ch[i] for i in heads], [8, 16, 32]), 4 * 16 + nc, heads)
        self.model = nn.ModuleList(layers)

    def forward(self, x):
        outs = []
        for layer, src in zip(self.model, self.sources):
            if isinstance(src, list):
                x = layer([x if i == -1 else outs[i] for i in src])
            else:
                x = layer(x)
            outs.append(x)
        return x
