"""The packaged cell classifier: one ``.npz`` file beside this module holding the network,
its input standardisation, output temperatures, output names and the sampling layout it was
trained with. Loading checks that the file matches the code's feature layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.learn.config import SamplingConfig
from vision.learn.dataset import OUTPUTS
from vision.learn.features import n_features
from vision.learn.mlp import MLP

#: The model shipped with the package (made by ``benchmarks/train_cells.py``).
DEFAULT_MODEL_PATH = Path(__file__).with_name("cells_model.npz")


class ModelError(ValueError):
    """A model file is missing, unreadable or does not match this code."""


@dataclass(frozen=True)
class CellModel:
    """A trained classifier and the sampling layout its features need."""

    net: MLP
    sampling: SamplingConfig
    outputs: tuple[str, ...]
    info: dict[str, object]

    def predict(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, len(outputs)) calibrated probabilities for (N, F) features."""
        return self.net.predict_proba(x)

    def column(self, name: str) -> int:
        return self.outputs.index(name)

    def save(self, path: str | Path) -> Path:
        """Write the model as a compressed ``.npz`` (float32 weights)."""
        path = Path(path)
        meta = {"sampling": self.sampling.as_dict(), "outputs": list(self.outputs),
                "info": self.info}
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **self.net.to_arrays())
        return path


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
        net = MLP.from_arrays(arrays)
        sampling = SamplingConfig.from_dict(meta["sampling"])
        outputs = tuple(meta["outputs"])
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ModelError(f"{path}: cannot load the cell model: {exc}") from exc
    if outputs != OUTPUTS:
        raise ModelError(f"{path}: outputs {outputs} do not match this code's {OUTPUTS}")
    if net.n_inputs != n_features(sampling) or net.n_outputs != len(OUTPUTS):
        raise ModelError(
            f"{path}: network takes {net.n_inputs} features and gives {net.n_outputs} outputs; "
            f"the sampling layout gives {n_features(sampling)} and the code has {len(OUTPUTS)}"
        )
    return CellModel(net, sampling, outputs, dict(meta.get("info", {})))


@lru_cache(maxsize=1)
def default_model() -> CellModel:
    """The packaged model, loaded once per process."""
    return load_model(DEFAULT_MODEL_PATH)
