"""The referee's ejection models (ATK-05/06, the launcher's card counts): one shared, immutable
:class:`~unolauncher.rules.ejection.EjectionModel` per game configuration (preset + custom table), so a new
game or an undo does not rebuild one.

Example::

    >>> model_for({"ejection_preset": "classic"}) is model_for({"ejection_preset": "classic"})
    True
"""

from __future__ import annotations

import json
from typing import Any

from unolauncher.rules.ejection import EjectionModel

_MODELS: dict[str, EjectionModel] = {}


def model_for(options: dict[str, Any]) -> EjectionModel:
    """The ejection model for a game's options; models are immutable, so one instance per configuration."""
    custom = options.get("ejection_custom")
    ms_per_card = options.get("ejection_ms_per_card")
    key = json.dumps([options.get("ejection_preset", "classic"), custom, ms_per_card], sort_keys=True)
    model = _MODELS.get(key)
    if model is None:
        model = EjectionModel(preset=options.get("ejection_preset", "classic"), custom=custom, ms_per_card=ms_per_card)
        if len(_MODELS) < 64:
            _MODELS[key] = model
    return model
