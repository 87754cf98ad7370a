"""Model components of PEARL: the character encoder and the fused phrase + character model."""

from pearl._lazy import lazy_exports

__all__ = [
    "CharEncoder",
    "CharFusion",
    "build_pearl_model",
    "encode_chars",
    "fusion_module",
    "is_pearl_folder",
    "load_pearl_model",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CharEncoder": "pearl.models.char_encoder",
        "encode_chars": "pearl.models.char_encoder",
        "CharFusion": "pearl.models.fusion",
        "build_pearl_model": "pearl.models.pearl_model",
        "fusion_module": "pearl.models.pearl_model",
        "is_pearl_folder": "pearl.models.pearl_model",
        "load_pearl_model": "pearl.models.pearl_model",
    },
)
