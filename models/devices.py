"""One way for the training scripts to pick where torch trains (``--device``): the CPU, a CUDA
GPU, or whichever is there. Torch is imported only when a device is picked, so the scripts'
card-only modes and the project itself never need it."""

from __future__ import annotations

from typing import Any

#: The values ``--device`` takes.
DEVICES = ("cpu", "cuda", "auto")


def pick_device(name: str) -> Any:
    """The torch device for ``--device``: ``cpu``, ``cuda`` (an error naming the choices when
    no CUDA GPU is there) or ``auto`` (CUDA when there is one, else the CPU). On CUDA the
    convolutions are chosen deterministically (cudnn benchmark off); some backward passes (the
    bilinear upsampling's) still add in no fixed order, so GPU runs repeat only to rounding."""
    import torch

    if name not in DEVICES:
        raise ValueError(f"--device {name!r} is unknown; use 'cpu', 'cuda' or 'auto'")
    if name == "cpu" or (name == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no CUDA GPU; use --device cpu or auto")
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    return torch.device("cuda")
