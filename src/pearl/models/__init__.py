"""Model components of PEARL: the character encoder and the fused phrase + character model."""

from pearl.models.char_encoder import CharEncoder, encode_chars
from pearl.models.fusion import CharFusion
from pearl.models.pearl_model import (
    build_pearl_model,
    fusion_module,
    is_pearl_folder,
    load_pearl_model,
)

__all__ = ["CharEncoder", "CharFusion", "build_pearl_model", "encode_chars", "fusion_module",
           "is_pearl_folder", "load_pearl_model"]
