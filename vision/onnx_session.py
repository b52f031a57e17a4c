"""One way to open a shipped ONNX model with onnxruntime: CPU only, a fixed small thread count,
sequential execution, idle threads that sleep instead of spinning, quiet logs, and an error of
the caller's type that names the file and how to rebuild it (a missing or broken model never
surfaces as an onnxruntime traceback)."""

from __future__ import annotations

import os
from pathlib import Path

import onnxruntime as ort

#: Intra-op threads of the shipped networks (the tile finder, the layer cue, the pip
#: classifier): two, or one on a one-core machine. With their idle threads sleeping
#: (``session.intra_op.allow_spinning`` 0; a spinning thread takes the core that OpenCV's next
#: stage, or the camera's capture thread, wants), on this 2-core machine (Intel Xeon,
#: 2026-11-23, session 20), the finder and the cue at two threads took
#: ``domino-companion evaluate --bench`` from 110.3 / 112.3 ms (one thread each) to 90.0 / 91.5
#: ms median a frame, process CPU 134-137 -> 138-140 ms (the finder alone 28.0 -> 14.9 ms a
#: frame, the cue's 30 crops 24.0 -> 11.5 ms); two threads that spin made the bench no faster
#: (113.7 / 105.7 ms, CPU 198-209 ms). The classifier's 60 halves: 2.40 -> 1.60 ms a call.
#: The networks' outputs are the same at one or two threads (largest difference 0.0).
INFERENCE_THREADS = max(1, min(2, os.cpu_count() or 1))


def open_session(path: Path, threads: int, error: type[Exception], rebuild: str
                 ) -> ort.InferenceSession:
    """An inference session on ``path`` with ``threads`` intra-op threads.

    Raises ``error`` (the caller's error type) when ``threads`` is not a positive integer or the
    file is not a loadable ONNX model; ``rebuild`` says how to make the file again.
    """
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise error(f"threads must be a positive integer, got {threads!r}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), sess_options=options,
                                    providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for a bad file
        raise error(f"{path} is not a loadable ONNX model ({exc}); rebuild it with {rebuild}"
                    ) from exc
