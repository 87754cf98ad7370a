"""PEARL training: configuration, data, character-encoder pretraining and the loop."""

from pearl._lazy import lazy_exports

__all__ = [
    "Batch",
    "TrainConfig",
    "TrainResult",
    "Trainer",
    "TrainingData",
    "average_weights",
    "load_config",
    "pretrain_char_encoder",
    "train",
    "vocabulary",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "pretrain_char_encoder": "pearl.training.char_pretrain",
        "vocabulary": "pearl.training.char_pretrain",
        "TrainConfig": "pearl.training.config",
        "load_config": "pearl.training.config",
        "Batch": "pearl.training.dataset",
        "TrainingData": "pearl.training.dataset",
        "Trainer": "pearl.training.trainer",
        "TrainResult": "pearl.training.trainer",
        "average_weights": "pearl.training.saving",
        "train": "pearl.training.trainer",
    },
)
