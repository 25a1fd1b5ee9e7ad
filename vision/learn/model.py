"""The packaged cell classifier: one ``.npz`` file beside this module holding the networks,
their input standardisation, output temperatures, output names and the sampling layout they
were trained with. Loading checks that the file matches the code's feature layout.

Two stages: first-stage networks (an ensemble, averaged) read each cell on its own; the
optional second-stage network reads the same features plus the occlusion context that the
first stage's odds imply (``vision.learn.context``), so a cell behind a tall piece is judged
knowing that piece is there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.learn.config import SamplingConfig
from vision.learn.context import CONTEXT_NAMES, context_features
from vision.learn.dataset import OUTPUTS
from vision.learn.features import mirror_features, n_features
from vision.learn.mlp import MLP

#: The model shipped with the package (made by ``benchmarks/train_cells.py``).
DEFAULT_MODEL_PATH = Path(__file__).with_name("cells_model.npz")


class ModelError(ValueError):
    """A model file is missing, unreadable or does not match this code."""


@dataclass(frozen=True)
class CellModel:
    """Trained classifier networks and the sampling layout their features need.

    ``stage1`` networks take the (N, F) cell features; ``stage2`` (optional) takes them plus
    the ``CONTEXT_NAMES`` columns.
    """

    stage1: tuple[MLP, ...]
    stage2: MLP | None
    sampling: SamplingConfig
    outputs: tuple[str, ...]
    info: dict[str, object]
    #: Average each prediction with that of the mirror-image features (the scene seen in a
    #: mirror is as likely, and the networks were trained on both).
    mirror_average: bool = True

    def column(self, name: str) -> int:
        return self.outputs.index(name)

    def predict_stage1(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, len(outputs)) first-stage probabilities (mean over the ensemble and, with
        ``mirror_average``, over the features and their mirror image)."""
        xs = self._views(x)
        return np.asarray(
            np.mean([net.predict_proba(v) for net in self.stage1 for v in xs], axis=0),
            dtype=np.float32,
        )

    def _views(self, x: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        if not self.mirror_average:
            return [x]
        index, sign = mirror_features(self.sampling)
        n = len(index)
        mirrored = x.copy()
        mirrored[:, :n] = x[:, index] * sign
        return [x, mirrored]

    def predict(
        self, x: NDArray[np.float32], covers: tuple[np.ndarray, np.ndarray] | None = None
    ) -> NDArray[np.float32]:
        """(16, len(outputs)) calibrated probabilities of one board's (16, F) features.

        ``covers`` (from ``vision.learn.context.cover_matrices``) is needed by the second stage;
        without it, or without a second stage, the first stage answers.
        """
        p1 = self.predict_stage1(x)
        if self.stage2 is None or covers is None:
            return p1
        ctx = context_features(covers, p1[:, self.column("occupied")], p1[:, self.column("height")])
        x2 = np.concatenate([x, ctx], axis=1)
        return np.asarray(
            np.mean([self.stage2.predict_proba(v) for v in self._views(x2)], axis=0),
            dtype=np.float32,
        )

    def save(self, path: str | Path) -> Path:
        """Write the model as a compressed ``.npz`` (float32 weights)."""
        path = Path(path)
        meta = {"sampling": self.sampling.as_dict(), "outputs": list(self.outputs),
                "info": self.info, "stage1": len(self.stage1),
                "stage2": self.stage2 is not None}
        arrays: dict[str, np.ndarray] = {}
        for k, net in enumerate(self.stage1):
            arrays.update({f"s1_{k}_{name}": a for name, a in net.to_arrays().items()})
        if self.stage2 is not None:
            arrays.update({f"s2_{name}": a for name, a in self.stage2.to_arrays().items()})
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
        return path


def _sub(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


def load_model(path: str | Path | None = None) -> CellModel:
    """Load a model file (default: the packaged one).

    Raises
    ------
    ModelError
        When the file is missing or unreadable, or its outputs or feature count do not match.
    """
    path = DEFAULT_MODEL_PATH if path is None else Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        meta = json.loads(str(arrays.pop("meta")))
        stage1 = tuple(MLP.from_arrays(_sub(arrays, f"s1_{k}_")) for k in range(meta["stage1"]))
        stage2 = MLP.from_arrays(_sub(arrays, "s2_")) if meta["stage2"] else None
        sampling = SamplingConfig.from_dict(meta["sampling"])
        outputs = tuple(meta["outputs"])
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ModelError(f"{path}: cannot load the cell model: {exc}") from exc
    if outputs != OUTPUTS:
        raise ModelError(f"{path}: outputs {outputs} do not match this code's {OUTPUTS}")
    nets = [(net, n_features(sampling)) for net in stage1]
    if stage2 is not None:
        nets.append((stage2, n_features(sampling) + len(CONTEXT_NAMES)))
    if not stage1:
        raise ModelError(f"{path}: no first-stage network")
    for net, n_in in nets:
        if net.n_inputs != n_in or net.n_outputs != len(OUTPUTS):
            raise ModelError(
                f"{path}: a network takes {net.n_inputs} features and gives {net.n_outputs} "
                f"outputs; this code needs {n_in} and {len(OUTPUTS)}"
            )
    return CellModel(stage1, stage2, sampling, outputs, dict(meta.get("info", {})))


@lru_cache(maxsize=1)
def default_model() -> CellModel:
    """The packaged model, loaded once per process."""
    return load_model(DEFAULT_MODEL_PATH)
