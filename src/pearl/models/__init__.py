"""Model components of PEARL (the fused model and its training come with issue 4)."""

from pearl.models.char_encoder import CharEncoder, encode_chars

__all__ = ["CharEncoder", "encode_chars"]
