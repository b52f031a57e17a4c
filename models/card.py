"""Write the pip classifier's model card (``pip_classifier.md``) from its metadata JSON.

Both ``train_pip_classifier.py`` (after training) and ``eval_pip_classifier_real.py --update``
(after measuring on real photos) call :func:`write_card`, so the card always shows the figures
stored in ``pip_classifier.json`` and nothing else.
"""

from __future__ import annotations

from pathlib import Path


def _pct(value: float) -> str:
    return f"{100.0 * value:.2f} %"


def _heldout_lines(name: str, fig: dict) -> list[str]:
    confusions = ", ".join(f"{k} x{v}" for k, v in list(fig["confusions"].items())[:8]) or "none"
    return [f"| {name} | {fig['halves']} | {_pct(fig['half_accuracy'])} "
            f"({fig['half_errors']} wrong) | {fig['tiles']} | {_pct(fig['tile_accuracy'])} | "
            f"{confusions} |"]


def card_text(meta: dict) -> str:
    """The model card for the metadata ``meta`` (the contents of ``pip_classifier.json``)."""
    training = meta["training"]
    renderer = training["renderer"]
    acc = meta["accuracy"]
    lines = [
        "# Pip classifier (`pip_classifier.onnx`)",
        "",
        "Counts the pips (0..15) on one half of a domino tile. Used by the pip reader "
        "(`vision/pips.py`) beside the classical pip counter, through "
        "`vision.classifier.PipClassifier`.",
        "",
        "## Input and output",
        "",
        f"- Input `{meta['input']['name']}`: float32 `(N, 48, 48)`, one square per half-tile, "
        "exactly as `vision.halves.half_crops` / `tile_crops` make them: "
        f"{meta['input']['normalisation']}.",
        f"- Output `{meta['output']['name']}`: float32 `(N, 16)`, softmax probabilities; "
        "column k is the probability of k pips. Classes: 0..15.",
        "- The batch axis is dynamic; run all halves of a frame in one call. ONNX opset 17; "
        f"{meta['bytes']:,} bytes; sha256 `{meta['sha256']}`.",
        "- Network: a stride-2 3x3 conv (8 channels), three 3x3 conv + batch norm + ReLU + 2x2 "
        "max-pool blocks (16, 32, 32 channels), dropout 0.1, one linear layer; about 20 k "
        "weights, about 1.7 M multiply-adds per half.",
        "- Served at two onnxruntime threads whose idle threads sleep since session 20 "
        "(`vision.onnx_session.INFERENCE_THREADS`): one batch of 60 halves 2.40 -> 1.60 ms "
        "median on that session's 2-core Intel Xeon (`python -m vision.classifier --bench "
        "--threads 1`, then without `--threads`).",
        "",
        "## Training data",
        "",
        f"- Only scenes drawn by the project's renderer `vision.render` (commit "
        f"`{renderer['commit']}`), training split: seeds {renderer['training_seeds']} "
        "(every third pinned to a double-fifteen set so that 10..15 pips are not rare), "
        "training tile families (ivory, white, black, coloured, pipcolour) and table families "
        "(wood, felt, cloth, paper). No photograph was used for training or for tuning.",
        f"- {training['scenes']} scenes, {training['variants']} looks each (the rendered frame, "
        "then random smaller sizes, brightness/contrast/gamma, blur, noise, JPEG), corner "
        f"jitter {training['jitter']} of the short edge; tiles face up, >= 90 % visible, not cut: "
        f"{training['halves']:,} halves, {training['epochs']} epochs "
        f"({training['seconds']} s on a 2-core CPU). Mirror flips in the batches.",
    ]
    if training.get("detected_looks"):
        lines += [
            f"- The first {training['detected_looks']} looks of each scene are also cut at the "
            "outlines the reader finds in them (the shipped tile finder, the classical pip "
            "reading alone, so the data does not depend on the classifier being rebuilt), each "
            "matched to a true tile as `domino-companion evaluate` matches them and labelled "
            "with its halves in the found corners' order: the outlines the classifier is shown "
            "when the product reads (slid along a chain, a little long or short, turned), "
            "without jitter. These are part of the halves above."]
    lines += [
        "- Halves per class: " + ", ".join(f"{k}: {v}" for k, v in
                                           training["halves_per_class"].items()) + ".",
        "- Scenes the renderer failed to draw were skipped and are listed in "
        f"`pip_classifier.json` (`skipped_scenes`: {len(meta.get('skipped_scenes', {}))}). "
        "The renderer keeps changing: a rebuild against a later renderer commit trains on "
        "different pictures.",
        "",
        "## Measured accuracy",
        "",
        f"Held-out renders: seeds {renderer['heldout_seeds']} (`held_out=True`: unseen seeds; "
        "about half on the held-out stone table, about 40 % with the held-out marbled tiles), "
        "never used for training or model choice.",
        "",
        "| set | halves | half accuracy | tiles | tile accuracy (both halves right) | "
        "commonest confusions (truth->read) |",
        "|---|---|---|---|---|---|",
    ]
    lines += _heldout_lines("held-out, exact corners, clean frame",
                            acc["heldout_exact_corners"])
    lines += _heldout_lines("held-out, jittered corners, augmented looks",
                            acc["heldout_augmented"])
    exact = acc["heldout_exact_corners"]["half_accuracy"]
    lines += ["", f"Target 99.95 % of halves on held-out renders: "
              f"{'met' if exact >= 0.9995 else 'NOT met'} ({_pct(exact)} with exact corners). "
              "Most misses read a half as 0 (pips not seen at all)."]
    for check in meta.get("rechecks", []):
        fig = check["accuracy"]
        lines += ["", f"Rechecked {check['date']} on the renderer of commit "
                  f"`{check['renderer_commit']}` (the shipped weights, not retrained; held-out "
                  f"seeds {check['heldout_seeds']}; `train_pip_classifier.py --recheck`):", "",
                  "| set | halves | half accuracy | tiles | tile accuracy (both halves right) | "
                  "commonest confusions (truth->read) |", "|---|---|---|---|---|---|"]
        lines += _heldout_lines("held-out, exact corners, clean frame",
                                fig["heldout_exact_corners"])
        lines += _heldout_lines("held-out, jittered corners, augmented looks",
                                fig["heldout_augmented"])
    lines += ["", "Real photos (evaluation only, never training): "]
    real = acc.get("real_bjorkwall_dev")
    if real is None:
        lines += ["not measured yet; run `python models/eval_pip_classifier_real.py --update`."]
    else:
        lines += [
            f"`../shared/real/bjorkwall-dev` ({real['photos']} 100x100 JPEG photos of one ivory "
            "double-six tile each), measured by `python models/eval_pip_classifier_real.py`. "
            f"The tile is located by {real.get('finder', 'the detector (`vision.detect.detect_tiles`)')}"
            f" or a simple fallback: found in {real['found']} photos ({_pct(real['found_rate'])}; "
            f"detector {real['found_by']['detector']}, fallback {real['found_by']['fallback']}). "
            f"Of the found tiles, {_pct(real['tile_accuracy_of_found'])} read right (both "
            f"values) and {_pct(real['half_accuracy_of_found'])} of halves; "
            f"{_pct(real['tile_accuracy_of_all'])} of all photos end read right. "
            "Commonest misreadings: " + ", ".join(f"{k} x{v}" for k, v in
                                                   real["top_confusions"].items()) + ".",
        ]
    lines += [
        "",
        "## Rebuild",
        "",
        "```",
        "pip install torch==2.13.0   # the CPU build; never let a resolver pull a CUDA build",
        "pip install -e '.[train]'",
        meta["training_command"],
        "python models/eval_pip_classifier_real.py --update   # real-photo figures, if present",
        "python models/train_pip_classifier.py --recheck   # shipped weights on today's renderer",
        "```",
        "",
        f"Seeded (`torch.manual_seed({meta['seed']})`, one `np.random.default_rng` per scene "
        f"seeded by ({meta['seed']}, split, scene, looks), deterministic torch algorithms, a "
        "fixed thread count). Rendering and cropping are "
        "exactly repeatable; torch on the CPU is repeatable on the same machine and thread "
        "count, but another CPU or thread count can change the last bits of the weights, so "
        "a rebuild gives a model with the same figures within noise, not the same sha256.",
        "",
        "## Limitations",
        "",
        "- Trained on rendered tiles only: real photos of sets unlike the renderer's looks "
        "(pips as engraved rings, pictures instead of pips, transparent tiles, strong glare) "
        "are untested.",
        "- It reads what the crop shows: corners off by more than about 5 % of the tile's width "
        "put part of the other half or the table in the square and can change the count.",
        "- A half smaller than about 8 pixels across in the frame is out of its range.",
        "- 10..15 use the double-fifteen layouts of the renderer (3 across x 5 along); other "
        "layouts of large sets are untested.",
        "- The probabilities are not calibrated against real photos; treat them as a ranking "
        "and let the reader combine them with the classical counter.",
        "",
    ]
    return "\n".join(lines)


def write_card(meta: dict, path: Path) -> None:
    """Write :func:`card_text` of ``meta`` to ``path``."""
    path.write_text(card_text(meta))
