"""One way to open a shipped ONNX model with onnxruntime: CPU only, a fixed small thread count,
sequential execution, quiet logs, and an error of the caller's type that names the file and how
to rebuild it (a missing or broken model never surfaces as an onnxruntime traceback)."""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort


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
    try:
        return ort.InferenceSession(str(path), sess_options=options,
                                    providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for a bad file
        raise error(f"{path} is not a loadable ONNX model ({exc}); rebuild it with {rebuild}"
                    ) from exc
