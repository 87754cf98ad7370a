"""The transformer phrase encoder: a sentence-transformers model with mean pooling."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from pearl._validation import InputTypeError, check_bool, check_choice, check_int, check_texts
from pearl.encoders.base import Encoder, normalize_rows
from pearl.encoders.fingerprint import folder_fingerprint
from pearl.encoders.precision import (
    COMPUTE_DTYPES,
    attention_for,
    compute_context,
    resolve_compute_dtype,
)
from pearl.encoders.resolve import DEFAULT_MODEL, locate_model, written_as_path

__all__ = ["PhraseEncoder", "DEFAULT_MODEL"]

logger = logging.getLogger(__name__)

#: Phrases per forward pass of a static model at least (its per-pass cost dominates small
#: batches: 3,900 phrases/s at 64, 48,000 at 16,384 for pearl-static on this machine).
STATIC_BATCH = 8192
#: Below this many texts a static model's lookups run on one thread: two threads gain
#: nothing there (0.33 against 0.35 ms for 100 names) and can wait up to 17 ms for a core
#: that another library's thread pool (BLAS, faiss) still spins on, which doubled the
#: time of deduplicating a 100-name column.
STATIC_ONE_THREAD = 1024


def _load_sentence_transformer(
    model: str | os.PathLike, device: str | None, trust_remote_code: bool = False
) -> Any:
    """``(model, resolved name or path, folder, root)``: a static folder on the CPU is
    served by :class:`~pearl.models.static_inference.StaticInference` (no torch), any other
    by sentence-transformers through the strict loader."""
    from pearl.models.folder_checks import check_model_folder
    from pearl.models.static_inference import StaticInference, is_static_stack

    folder, root, target = locate_model(str(model))
    entries = check_model_folder(folder, trust_remote_code, root)
    if (device or "cpu") == "cpu" and is_static_stack(entries):
        return StaticInference(folder, normalize=len(entries) > 1), target, folder, root
    return _open_torch(folder, device, trust_remote_code, root), target, folder, root


def _open_torch(
    folder: Path, device: str | None, trust_remote_code: bool, root: Path | None
) -> Any:
    from pearl.models.loading import open_model_folder

    return open_model_folder(folder, device, trust_remote_code, root=root).float()


class PhraseEncoder(Encoder):
    """Embed phrases with a transformer and mean pooling.

    Parameters
    ----------
    model : str or path-like, default=DEFAULT_MODEL
        A sentence-transformers folder (PEARL folders included), a known offline name
        (``"pearl-minilm"``, the model shipped with pearl; ``"all-MiniLM-L6-v2"``,
        ``"all-mpnet-base-v2"``) or a Hugging Face name
        (needs a reachable hub or a local HF cache).
    device : str, optional
        Torch device; CPU unless given.
    chunk_size : int, default=8192
        Inputs are validated, length-sorted and encoded this many at a time, so a
        very long list streams through the model without tokenising everything
        at once.
    trust_remote_code : bool, default=False
        Allow module types in the folder's ``modules.json`` other than
        sentence-transformers' and pearl's own, which imports code named by the folder.
        Leave it False for any folder you did not make yourself (see ``docs/security.md``).
    truncate_dim : int, optional
        Keep the first this many dimensions of every embedding (for models trained with a
        Matryoshka loss), as sentence-transformers' ``truncate_dim``.
    compute_dtype : {"auto", "float32", "bfloat16", "fast"}, default="auto"
        ``"auto"`` is float32 (``$PEARL_COMPUTE_DTYPE`` when set): vectors that do not
        depend on the batch they were computed in. ``"fast"`` runs a transformer's matrix
        products in bfloat16 (``torch.autocast``; weights stay float32) where the CPU has
        native bfloat16, about twice as fast, with a cosine of at least 0.9999 to the
        float32 vectors but batch-dependent ones (float32 elsewhere); ``"bfloat16"`` on
        any CPU (:mod:`pearl.encoders.precision`).

    Notes
    -----
    Empty and whitespace-only strings are all encoded as ``""``, i.e. they get
    the model's embedding of an empty input (the mean of its ``[CLS]`` and
    ``[SEP]`` token states), the same vector each time. Strings longer than
    the model's ``max_seq_length`` tokens are truncated.

    Examples
    --------
    >>> enc = PhraseEncoder("all-MiniLM-L6-v2")
    >>> enc.encode(["The New York Times", "NYTimes"]).shape
    (2, 384)
    """

    def __init__(
        self,
        model: str | os.PathLike = DEFAULT_MODEL,
        device: str | None = None,
        chunk_size: int = 8192,
        trust_remote_code: bool = False,
        truncate_dim: int | None = None,
        compute_dtype: str = "auto",
    ) -> None:
        if not isinstance(model, str | os.PathLike):
            raise InputTypeError(
                f"model must be a name or a folder path, got {type(model).__name__}"
            )
        self.chunk_size = check_int(chunk_size, "chunk_size", 1)
        self.truncate_dim = (
            None if truncate_dim is None else check_int(truncate_dim, "truncate_dim", 1)
        )
        self.trust_remote_code = check_bool(trust_remote_code, "trust_remote_code")
        self.compute_dtype = check_choice(compute_dtype, "compute_dtype", COMPUTE_DTYPES)
        self.model_name = str(model)
        self.device = device or "cpu"
        loaded, self.path, self._folder, self._root = _load_sentence_transformer(
            model, self.device, self.trust_remote_code
        )
        #: the torch-free static model, or None (the model is a SentenceTransformer)
        from pearl.models.static_inference import StaticInference

        self._static: Any = loaded if isinstance(loaded, StaticInference) else None
        self._model = None if self._static is not None else loaded
        self.name = Path(self.path).name if written_as_path(model) else self.model_name
        self._fingerprint: str | None = None
        self._loaded_max_seq_length = self.max_seq_length
        self._check_pooling()

    @property
    def model(self):
        """The ``SentenceTransformer`` (for training, saving or inspection). A static model
        is served without torch until this is first read; from then on ``encode`` runs
        through the model returned here, so changes made to it are seen."""
        if self._model is None:
            self._model = _open_torch(self._folder, self.device, self.trust_remote_code, self._root)
        return self._model

    @property
    def _serving(self):
        """What encodes: the torch-free static model until ``model`` is read, else it."""
        return self._static if self._model is None else self._model

    def _check_pooling(self) -> None:
        if self._model is None:  # a static model has no pooling module
            return
        for module in self.model:
            mode = getattr(module, "pooling_mode", None) or (
                module.get_pooling_mode_str() if hasattr(module, "get_pooling_mode_str") else None
            )
            if mode is not None and mode != "mean":
                logger.warning("%s pools with %r; PEARL uses mean pooling", self.model_name, mode)

    @property
    def _full_dim(self) -> int:
        if self._model is None:
            return self._static.embedding_dim
        dim = self.model.get_embedding_dimension()
        if dim is None:  # some custom stacks do not report it
            dim = int(self.model.encode([""], convert_to_numpy=True).shape[1])
        return int(dim)

    @property
    def embedding_dim(self) -> int:
        """The width of the embeddings (``truncate_dim`` when set)."""
        full = self._full_dim
        return min(full, self.truncate_dim) if self.truncate_dim else full

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            p = Path(self.path)
            self._fingerprint = folder_fingerprint(p) if p.is_absolute() else self.path
        if self.max_seq_length != self._loaded_max_seq_length:  # other outputs, other key
            return f"{self._fingerprint}+max_seq_length={self.max_seq_length}"
        return self._fingerprint

    @property
    def cache_fingerprint(self) -> str:
        """The key of this encoder's vectors in embedding caches: :attr:`fingerprint` (the
        model's identity, what indexes and matcher weights check), marked when the
        matrix products run in bfloat16, so caches keep the two precisions apart."""
        return self.fingerprint + ("+bfloat16" if self._dtype() == "bfloat16" else "")

    def _dtype(self) -> str:
        """The resolved ``compute_dtype`` (float32 for a static model: no matrix products)."""
        if self._model is None or getattr(self._model[0], "auto_model", None) is None:
            return "float32"
        return resolve_compute_dtype(self.compute_dtype, self.device)

    def encode(
        self,
        texts: str | Iterable[str] | None = None,
        batch_size: int = 64,
        normalize: bool = False,
        show_progress_bar: bool | None = None,
        *,
        sentences: str | Iterable[str] | None = None,
        inputs: str | Iterable[str] | None = None,
        prompt: str | None = None,
        prompt_name: str | None = None,
        normalize_embeddings: bool = False,
        convert_to_numpy: bool = True,
        convert_to_tensor: bool = False,
        precision: str | None = "float32",
        truncate_dim: int | None = None,
        device: str | None = None,
        output_value: str | None = "sentence_embedding",
    ) -> Any:
        """Embed phrases, with sentence-transformers' ``encode`` conventions.

        Parameters
        ----------
        texts : str or iterable of str
            Phrases (``sentences=`` and ``inputs=`` are accepted too, as in
            sentence-transformers). None, NaN and non-strings raise ``ValueError`` naming
            the index. A single string gives a 1-d vector, a list a 2-d array.
        batch_size : int, default=64
            Phrases per forward pass (batches are formed after sorting by length). A static
            model, which pads nothing, encodes at least :data:`STATIC_BATCH` phrases per
            pass: its cost per pass, not per phrase, dominates small batches.
        normalize : bool, default=False
            L2-normalise the embeddings (pearl's name; ``normalize_embeddings`` is the same).
        show_progress_bar : bool, optional
            Show a progress bar; by default only for more than one chunk.
        prompt, prompt_name : str, optional
            A text put before every phrase, or the name of one of the model's prompts.
        normalize_embeddings : bool, default=False
            sentence-transformers' name of ``normalize``.
        convert_to_numpy, convert_to_tensor : bool
            A numpy array (default); a torch tensor (``convert_to_tensor=True``); a list of
            1-d tensors (``convert_to_numpy=False``).
        precision : {"float32", "int8", "uint8", "binary", "ubinary"} or None
            Quantised embeddings, as sentence-transformers' ``quantize_embeddings`` makes
            them (binary ones pack 8 dimensions per byte); None is float32, as in
            sentence-transformers.
        truncate_dim : int, optional
            Keep the first this many dimensions (before normalisation); default: the
            encoder's ``truncate_dim``.
        device : str, optional
            The device of a returned tensor.
        output_value : {"sentence_embedding"}
            Only phrase embeddings are offered.

        Returns
        -------
        ndarray of shape (n, dim) or (dim,) for a single string; a tensor or a list of
        tensors as asked. float32 unless ``precision`` says otherwise.
        """
        given = [v for v in (texts, sentences, inputs) if v is not None]
        if len(given) != 1:
            raise InputTypeError(
                "give the phrases once: texts (first argument), sentences= or inputs="
            )
        texts = given[0]
        if output_value != "sentence_embedding":
            raise ValueError(
                "PhraseEncoder.encode offers output_value='sentence_embedding' "
                f"only, got {output_value!r}"
            )
        precision = check_choice(
            "float32" if precision is None else precision,
            "precision",
            ("float32", "int8", "uint8", "binary", "ubinary"),
        )
        single = isinstance(texts, str)
        items = check_texts(texts)
        prefix = self._prompt(prompt, prompt_name)
        if prefix:
            items = [prefix + t for t in items]
        batch_size = check_int(batch_size, "batch_size", 1)
        normalize = check_bool(normalize, "normalize") or check_bool(
            normalize_embeddings, "normalize_embeddings"
        )
        dim = (
            self.truncate_dim
            if truncate_dim is None
            else check_int(truncate_dim, "truncate_dim", 1)
        )
        emb = self._encode_all(items, batch_size, show_progress_bar)
        if dim is not None:
            emb = np.ascontiguousarray(emb[:, :dim])
        if normalize:
            emb = normalize_rows(emb)
        if precision != "float32":
            from sentence_transformers import quantize_embeddings

            emb = quantize_embeddings(emb, precision=precision)
        if convert_to_tensor or not convert_to_numpy:
            import torch

            tensor = torch.from_numpy(emb)
            if device is not None:
                tensor = tensor.to(device)
            if convert_to_tensor:
                return tensor[0] if single else tensor
            rows = list(tensor)
            return rows[0] if single else rows
        return emb[0] if single else emb

    def encode_query(self, texts: str | Iterable[str] | None = None, **kwargs: Any) -> Any:
        """:meth:`encode` with the model's ``"query"`` prompt when it has one and none is
        given (sentence-transformers' ``encode_query``; pearl's models have none, so
        queries and documents are encoded alike)."""
        return self._encode_as("query", texts, kwargs)

    def encode_document(self, texts: str | Iterable[str] | None = None, **kwargs: Any) -> Any:
        """:meth:`encode` with the model's ``"document"`` prompt when it has one and none
        is given (sentence-transformers' ``encode_document``)."""
        return self._encode_as("document", texts, kwargs)

    def _encode_as(self, role: str, texts: Any, kwargs: dict) -> Any:
        prompts = getattr(self._serving, "prompts", {}) or {}
        if kwargs.get("prompt") is None and kwargs.get("prompt_name") is None:
            kwargs = {**kwargs, "prompt_name": role if role in prompts else None}
        return self.encode(texts, **kwargs)

    def _prompt(self, prompt: str | None, prompt_name: str | None) -> str:
        if prompt is not None:
            return prompt
        if prompt_name is None:
            return ""
        prompts = getattr(self._serving, "prompts", {}) or {}
        if prompt_name not in prompts:
            raise ValueError(
                f"prompt_name {prompt_name!r} is not one of the model's prompts {sorted(prompts)}"
            )
        return prompts[prompt_name]

    @property
    def max_seq_length(self) -> int | None:
        """Tokens read per phrase; longer phrases are truncated (sentence-transformers'
        attribute, which it also sets). None for a model without a token limit."""
        return getattr(self._serving, "max_seq_length", None)

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if self._model is None:
            raise AttributeError(
                f"{self.name} is a static model: it reads every token of a phrase and has "
                "no max_seq_length to set"
            )
        self.model.max_seq_length = check_int(value, "max_seq_length", 1)

    def get_sentence_embedding_dimension(self) -> int:
        """The width of the embeddings ``encode`` returns (sentence-transformers' name)."""
        return self.embedding_dim

    get_embedding_dimension = get_sentence_embedding_dimension

    def _encode_all(
        self, items: list[str], batch_size: int, show_progress_bar: bool | None
    ) -> np.ndarray:
        """float32 embeddings of checked strings, chunk by chunk, unnormalised."""
        n = len(items)
        if n == 0:
            return np.zeros((0, self._full_dim), dtype=np.float32)
        if show_progress_bar is None:
            show_progress_bar = n > self.chunk_size
        out: np.ndarray | None = None
        with _progress(n, show_progress_bar, f"encode {self.name}") as bar:
            for start in range(0, n, self.chunk_size):
                chunk = items[start : start + self.chunk_size]
                emb = self._encode_chunk(chunk, batch_size, False)
                if out is None:
                    out = np.empty((n, emb.shape[1]), dtype=np.float32)
                out[start : start + len(chunk)] = emb
                bar.update(len(chunk))
        assert out is not None  # n > 0 here
        return out

    def _encode_chunk(self, chunk: list[str], batch_size: int, normalize: bool) -> np.ndarray:
        if self._model is None:  # a static model, served with NumPy
            emb = self._static.encode(chunk)
            return normalize_rows(emb) if normalize else emb
        from sentence_transformers.sentence_transformer.modules import StaticEmbedding

        if not isinstance(self.model[0], StaticEmbedding):
            return self._encode_by_tokens(chunk, batch_size, normalize)
        # a static model: no padding, so no length sorting; the texts are already checked
        # strings, so sentence-transformers' per-row input-type inference is skipped
        import torch

        batch_size = max(batch_size, STATIC_BATCH)
        parts = []
        threads = torch.get_num_threads()
        if len(chunk) < STATIC_ONE_THREAD and threads > 1:
            torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                for s in range(0, len(chunk), batch_size):
                    feats = self.model[0].preprocess(chunk[s : s + batch_size])
                    feats = {k: v.to(self.model.device) for k, v in feats.items()}
                    parts.append(self.model(feats)["sentence_embedding"].float().cpu().numpy())
        finally:
            torch.set_num_threads(threads)
        emb = np.concatenate(parts)
        if normalize:
            emb = normalize_rows(emb)
        return emb

    def _encode_by_tokens(self, chunk: list[str], batch_size: int, normalize: bool) -> np.ndarray:
        """A transformer's embeddings of ``chunk``, batched by token count, computed in
        :meth:`_dtype`.

        sentence-transformers batches texts of similar *character* length; short phrases
        of one length hold 3 to 7 tokens, so a batch of 256 of them padded 1.54 times the
        tokens it read (FEBRL4's names and addresses). Batches of similar token counts pad
        3% and encode about a quarter faster; the vectors are the same to 1.6e-7.
        """
        dtype = self._dtype()
        with compute_context(dtype, self.device):
            return self._encode_sorted(chunk, batch_size, normalize, dtype)

    def _encode_sorted(
        self, chunk: list[str], batch_size: int, normalize: bool, dtype: str
    ) -> np.ndarray:
        from functools import partial

        from sentence_transformers.sentence_transformer.modules import Transformer

        model = self.model
        encode = partial(
            model.encode,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=normalize,
            show_progress_bar=False,
        )
        tokenizer = getattr(model[0], "tokenizer", None)
        if not chunk or not isinstance(model[0], Transformer) or tokenizer is None:
            return encode(chunk)
        ids = tokenizer(
            chunk,
            truncation=True,
            max_length=model.max_seq_length,
            return_attention_mask=False,
            return_token_type_ids=False,
        )["input_ids"]
        tokens = np.fromiter(map(len, ids), np.int64, len(chunk))
        chars = np.fromiter(map(len, chunk), np.int64, len(chunk))
        order = np.lexsort((-chars, -tokens))  # longest first, as sentence-transformers
        out: np.ndarray | None = None
        for s in range(0, len(chunk), batch_size):
            at = order[s : s + batch_size]
            with attention_for(model, dtype, self.device, int(tokens[at[0]])):
                emb = encode([chunk[i] for i in at])
            if out is None:
                out = np.empty((len(chunk), emb.shape[1]), dtype=emb.dtype)
            out[at] = emb
        assert out is not None  # chunk is not empty here
        return out

    def save(self, path: str | os.PathLike) -> None:
        """Save the model as a sentence-transformers folder.

        The folder is written beside and renamed into place when complete; an existing
        model folder is replaced, any other non-empty folder is refused
        (``FileExistsError``).
        """
        from pearl._io import atomic_dir

        with atomic_dir(path, replaceable="modules.json") as tmp:
            self.model.save(str(tmp))


class _NoProgress:
    """The progress bar of a call that shows none (tqdm is not imported for it: 0.03-0.09 s
    of a first small encoding)."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        """Nothing to show."""


def _progress(total: int, show: bool, desc: str) -> Any:
    """A tqdm bar over ``total`` phrases when ``show``, else one that does nothing."""
    from pearl._progress import silenced

    if not show or silenced():
        return _NoProgress()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="phrase")
